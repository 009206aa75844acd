import { describeRealWoo } from "./scenario.js"

// Orders in wp_wc_orders, the default of every shop created since WooCommerce 8.2.
describeRealWoo({ hpos: true, seed: 7 })
