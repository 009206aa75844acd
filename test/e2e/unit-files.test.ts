// The systemd units and Kubernetes Deployments of the long-running modes (config/): each runs a real shopsync
// command with settings shopsync knows, and the probes ask the path and port that `serve` and `worker`, started with
// the manifests' own settings, answer 200 on.
import { execFileSync } from "node:child_process"
import { randomBytes } from "node:crypto"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { parseAllDocuments } from "yaml"
import { ENVIRONMENT_ONLY, SETTINGS } from "../../src/config/settings.js"
import { startStoreSimulator, type StoreSimulator } from "../../src/simulator/store/index.js"
import { runCli, startCli, stopAll } from "../support/cli.js"
import { freshDatabase } from "../support/database.js"
import { freePort } from "../support/ports.js"
import { eventually } from "../support/serve.js"

const root = path.resolve(fileURLToPath(new URL("../..", import.meta.url)))
const read = (file: string) => fs.readFileSync(path.join(root, file), "utf8")
const MODES = ["serve", "worker"] as const
/** A variable shopsync reads. */
const known = (name: string) => SETTINGS.has(name) || (ENVIRONMENT_ONLY as ReadonlyArray<string>).includes(name)

/** A unit file's [Service] settings: key → values (a key may repeat). */
const serviceSection = (text: string) => {
  const entries = new Map<string, string[]>()
  let section = ""
  for (const line of text.split("\n").map((l) => l.trim())) {
    if (line === "" || line.startsWith("#")) continue
    const header = /^\[(\w+)\]$/.exec(line)
    if (header) section = header[1]!
    else if (section === "Service") {
      const at = line.indexOf("=")
      entries.set(line.slice(0, at), [...entries.get(line.slice(0, at)) ?? [], line.slice(at + 1)])
    }
  }
  return entries
}

/** The shopsync arguments of an ExecStart (after bin/shopsync.mjs). */
const shopsyncArgs = (execStart: string) => {
  const words = execStart.split(/\s+/)
  const at = words.findIndex((w) => w.endsWith("/bin/shopsync.mjs"))
  expect(at, execStart).toBeGreaterThan(0)
  return words.slice(at + 1)
}

/** `shopsync <args> --help` exits 0 and describes that command: the arguments name a real command. */
const expectCommand = async (args: ReadonlyArray<string>) => {
  const help = await runCli([...args, "--help"])
  expect(help.code, help.stderr).toBe(0)
  expect(help.stdout).toContain(`shopsync ${args.join(" ")}`)
}

interface Container {
  args: string[]
  env: Array<{ name: string; value?: string; valueFrom?: unknown }>
  ports: Array<{ name: string; containerPort: number }>
  readinessProbe: { httpGet: { path: string; port: string | number } }
  livenessProbe: { httpGet: { path: string; port: string | number } }
  startupProbe?: { httpGet: { path: string; port: string | number } }
  resources: { requests: Record<string, string>; limits: Record<string, string> }
  securityContext: { allowPrivilegeEscalation: boolean; readOnlyRootFilesystem: boolean; capabilities: { drop: string[] } }
}

/** The Deployment of a manifest and its one container. */
const deployment = (mode: (typeof MODES)[number]) => {
  const docs = parseAllDocuments(read(`config/kubernetes/${mode}.yaml`)).map((d) => d.toJS())
  const deploy = docs.find((d) => d.kind === "Deployment")
  expect(deploy, mode).toBeDefined()
  const containers: Container[] = deploy.spec.template.spec.containers
  expect(containers.length).toBe(1)
  return { deploy, container: containers[0]!, service: docs.find((d) => d.kind === "Service") }
}

/** Where a probe points: its path and the container port number it names. */
const probeTarget = (container: Container, probe: { httpGet: { path: string; port: string | number } }) => {
  const port = typeof probe.httpGet.port === "number" ? probe.httpGet.port : container.ports.find((p) => p.name === probe.httpGet.port)?.containerPort
  expect(port, JSON.stringify(probe)).toBeDefined()
  return { path: probe.httpGet.path, port: port! }
}

const envValue = (container: Container, name: string) => container.env.find((e) => e.name === name)?.value

describe("systemd units for serve and worker", () => {
  for (const mode of MODES) {
    const file = `config/systemd/shopsync-${mode}.service`

    it(`${file} restarts on failure, runs \`shopsync ${mode}\` through node, with settings shopsync reads`, async () => {
      const service = serviceSection(read(file))
      expect(service.get("Restart")).toEqual(["on-failure"])
      expect(service.get("NoNewPrivileges")).toEqual(["yes"])
      expect(service.get("ProtectSystem")).toEqual(["strict"])
      const [execStart] = service.get("ExecStart")!
      expect(execStart).toMatch(/^\/usr\/bin\/node \/opt\/shopsync\/bin\/shopsync\.mjs /)
      const args = shopsyncArgs(execStart!)
      expect(args).toEqual([mode])
      await expectCommand(args)
      const names = (service.get("Environment") ?? []).flatMap((line) => line.split(/\s+/).map((pair) => pair.split("=")[0]!))
      expect(names.filter((name) => !known(name))).toEqual([])
      // Secrets reach the worker as systemd credentials, read through the _FILE settings.
      if (mode === "worker") {
        expect(service.get("LoadCredential")!.map((c) => c.split(":")[0])).toEqual(["master.key", "cluster.secret"])
        expect(names).toEqual(expect.arrayContaining(["SHOPSYNC_MASTER_KEY_FILE", "SHOPSYNC_CLUSTER_SECRET_FILE"]))
        expect(service.get("Environment")!.join(" ")).toContain("SHOPSYNC_MASTER_KEY_FILE=%d/master.key")
      }
    })

    it(`${file} passes systemd-analyze verify`, (context) => {
      const analyze = ["/usr/bin/systemd-analyze", "/bin/systemd-analyze"].find((p) => fs.existsSync(p))
      if (analyze === undefined) return context.skip("systemd-analyze is not installed")
      // Checked with this machine's node, wherever it is installed.
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), "units-"))
      const unit = path.join(dir, `shopsync-${mode}.service`)
      fs.writeFileSync(unit, read(file).replaceAll("/usr/bin/node", process.execPath))
      try {
        const output = execFileSync(analyze, ["verify", unit], { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] })
        expect(output).toBe("")
      } finally {
        fs.rmSync(dir, { recursive: true })
      }
    })
  }
})

describe("Kubernetes Deployments for serve and worker", () => {
  for (const mode of MODES) {
    it(`config/kubernetes/${mode}.yaml runs \`shopsync ${mode}\` hardened, with probes on the webhook listener's /healthz`, async () => {
      const { deploy, container, service } = deployment(mode)
      expect(container.args).toEqual([mode])
      await expectCommand(container.args)
      expect(container.env.map((e) => e.name).filter((name) => !known(name))).toEqual([])
      for (const probe of [container.readinessProbe, container.livenessProbe, container.startupProbe]) {
        // The webhook listener, on the pod's address (the kubelet probes it there), not the loopback admin listener.
        expect(probeTarget(container, probe!)).toEqual({ path: "/healthz", port: Number(envValue(container, "SHOPSYNC_HTTP_PORT")) })
      }
      expect(envValue(container, "SHOPSYNC_HTTP_HOST")).toBe("0.0.0.0")
      expect(envValue(container, "SHOPSYNC_ADMIN_HOST")).toBe("127.0.0.1")
      expect(container.resources.requests.memory).toBeDefined()
      expect(container.resources.limits.memory).toBeDefined()
      expect(container.securityContext).toMatchObject({ allowPrivilegeEscalation: false, readOnlyRootFilesystem: true, capabilities: { drop: ["ALL"] } })
      expect(deploy.spec.template.spec.securityContext.runAsNonRoot).toBe(true)
      expect(service.spec.ports[0].targetPort).toBe("http")
    })
  }
})

describe("the probes answer 200 on serve and worker started with the manifests' settings", () => {
  let sim: StoreSimulator
  let db: Awaited<ReturnType<typeof freshDatabase>>
  const runs: Array<ReturnType<typeof startCli>> = []
  beforeAll(async () => {
    sim = await startStoreSimulator({ data: { seed: 8, orders: 30, start: "2026-03-01", days: 10 } })
    db = await freshDatabase()
  })
  afterAll(async () => {
    await stopAll(runs, 15_000)
    await sim.close()
    await db.drop()
  })

  /** The manifest's literal settings, its ports moved to free ones (these tests share a machine). */
  const manifestEnv = async (container: Container) => {
    const ports = new Map<string, string>()
    for (const p of container.ports) ports.set(String(p.containerPort), String(await freePort()))
    const env: Record<string, string> = {}
    for (const e of container.env) if (e.value !== undefined) env[e.name] = ports.get(e.value) ?? (/_PORT$/.test(e.name) ? String(await freePort()) : e.value)
    return { env, ports }
  }

  for (const mode of MODES) {
    it(`\`shopsync ${mode}\`: GET <probe path> on the probe's port answers 200`, async () => {
      const { container } = deployment(mode)
      const { env, ports } = await manifestEnv(container)
      const own = mode === "serve"
        ? { STORE_API_URL: sim.url, STORE_CONSUMER_KEY: "ck_demo", STORE_CONSUMER_SECRET: "cs_demo", STORE_ID: "probe", STORE_WEBHOOK_SECRET: "whsec_probe" }
        // A pod's address stands for itself; here loopback (no cluster secret needed there).
        : { SHOPSYNC_RUNNER_HOST: "127.0.0.1", SHOPSYNC_MASTER_KEY: randomBytes(32).toString("base64") }
      const fileVariables = Object.keys(env).filter((name) => name.endsWith("_FILE"))
      for (const name of fileVariables) delete env[name]
      const run = startCli([mode], { ...env, ...own, DATABASE_URL: db.url })
      runs.push(run)
      const { path: probePath, port } = probeTarget(container, container.readinessProbe)
      const url = `http://127.0.0.1:${ports.get(String(port))}${probePath}`
      const status = await eventually(async () => {
        const res = await fetch(url, { signal: AbortSignal.timeout(3_000) })
        return res.status === 200 ? res.status : undefined
      }, 90_000, `${mode}'s ${probePath}`).catch((e) => {
        throw new Error(`${String(e)}\n${run.output().stderr.slice(-3000)}`)
      })
      expect(status).toBe(200)
    })
  }
})
