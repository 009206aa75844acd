import { describeRealWoo } from "./scenario.js"

// Orders in wp_posts, the older storage many live shops still use. Seed 21 untrashes an order whose refund the
// posts storage had trashed with it: the refund comes back with its old date, behind the refunds cursor.
describeRealWoo({ hpos: false, seed: 21 })
