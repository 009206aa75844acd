/**
 * The store simulator as its own process, the compiled `shopsync simulate store` (build dist/ first): one generated
 * store of `orders` orders, `orders / 5` customers and `products` products, with any further options of the command.
 * Every phase of the benchmark that reads one store starts it this way, so its CPU is counted apart from the program's.
 */
import { spawn } from "node:child_process"
import * as path from "node:path"

export interface SimulatorProcess {
  /** The store API root (STORE_API_URL), keys ck_demo / cs_demo. */
  readonly url: string
  readonly pid: number | undefined
  readonly stop: () => void
}

export interface SimulatorOptions {
  readonly orders: number
  readonly products: number
  /** More options of `simulate store`, e.g. ["--faults", "latency:250ms"]. */
  readonly extra?: ReadonlyArray<string>
}

export const startSimulator = (root: string, options: SimulatorOptions) =>
  new Promise<SimulatorProcess>((resolve, reject) => {
    const args = ["simulate", "store", "--orders", String(options.orders), "--customers", String(Math.round(options.orders / 5)),
      "--products", String(options.products), ...(options.extra ?? [])]
    const child = spawn(process.execPath, [path.join(root, "dist/bin/shopsync.js"), ...args], { cwd: root, stdio: ["ignore", "pipe", "inherit"] })
    let out = ""
    child.stdout.on("data", (d) => {
      out += String(d)
      const m = /STORE_API_URL=(\S+)/.exec(out)
      if (m) resolve({ url: m[1]!, pid: child.pid, stop: () => child.kill("SIGTERM") })
    })
    child.on("exit", (code) => reject(new Error(`simulator exited with ${code}`)))
  })
