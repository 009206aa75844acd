/**
 * Many stores in one process, for the workers phase (bench/workers.ts): store i (shop1, shop2, …) is a store simulator
 * on a port of its own with its own data (seed), keys and timezone. Prints `STORE <id> <api url> <key> <secret>` per
 * store, then `READY`. Every `--change-ms`, each store gets one new order and one changed one (a status flip), so every
 * sync has something new to load. Commands on standard input, each answered `OK <command>`:
 *   latency <ms>   every request of every store waits that long first (0: none)
 *
 *   node --import tsx bench/store-fleet.ts --stores 30 --orders 300 --change-ms 2000
 */
import * as readline from "node:readline"
import { startStoreSimulator, type StoreSimulator } from "../src/simulator/store/index.js"

const arg = (name: string, fallback: number) => {
  const i = process.argv.indexOf(`--${name}`)
  return i > 0 ? Number(process.argv[i + 1]) : fallback
}
const ZONES = ["America/New_York", "Europe/Berlin", "Asia/Tokyo", "Australia/Sydney", "America/Los_Angeles", "Asia/Kolkata"]

const pick = <A>(xs: ReadonlyArray<A>): A | undefined => xs[Math.floor(Math.random() * xs.length)]

/** One new order of a simple product and one order flipped between processing and completed. */
const change = (sim: StoreSimulator) => {
  const state = sim.state
  const product = pick([...state.productById.values()].filter((p) => p.type === "simple" && p.status === "publish").slice(0, 50))
  const customer = pick([...state.customerById.keys()].slice(0, 50))
  if (product !== undefined) {
    state.createOrder({ status: "processing", set_paid: true, ...(customer === undefined ? {} : { customer_id: customer }), line_items: [{ product_id: product.id, quantity: 1 }] })
  }
  const order = pick([...state.orderById.values()].filter((o) => o.status === "processing" || o.status === "completed").slice(-200))
  if (order !== undefined) state.updateOrder(order.id, { status: order.status === "completed" ? "processing" : "completed" })
}

const main = async () => {
  const count = arg("stores", 30)
  const orders = arg("orders", 300)
  const changeMs = arg("change-ms", 2000)
  const sims: StoreSimulator[] = []
  for (let i = 1; i <= count; i++) {
    const sim = await startStoreSimulator({
      consumerKey: `ck_shop${i}`, consumerSecret: `cs_shop${i}`, timezone: ZONES[i % ZONES.length]!,
      data: { seed: 100 + i, orders, start: "2026-01-05", days: 60 }
    })
    sims.push(sim)
    process.stdout.write(`STORE shop${i} ${sim.url} ck_shop${i} cs_shop${i}\n`)
  }
  process.stdout.write("READY\n")
  const timer = setInterval(() => {
    for (const sim of sims) {
      try {
        change(sim)
      } catch (e) {
        process.stderr.write(`store-fleet: a change failed: ${String(e)}\n`)
      }
    }
  }, changeMs)
  readline.createInterface({ input: process.stdin }).on("line", (line) => {
    const [command, value] = line.trim().split(/\s+/)
    if (command === "latency") {
      const ms = Number(value)
      for (const sim of sims) sim.setFaults(ms > 0 ? [{ kind: "latency", latencyMs: ms }] : [])
    }
    process.stdout.write(`OK ${line.trim()}\n`)
  })
  const stop = async () => {
    clearInterval(timer)
    await Promise.all(sims.map((s) => s.close()))
    process.exit(0)
  }
  process.on("SIGTERM", () => void stop())
}

main().catch((e) => {
  console.error(e)
  process.exit(1)
})
