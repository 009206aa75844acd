import { describeRealWoo } from "./scenario.js"

// Orders in wp_posts, the older storage many live shops still use.
describeRealWoo({ hpos: false })
