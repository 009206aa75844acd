/**
 * The CPU side of the benchmark (issue 14): on a few cores shared by the simulator, the CLI and PostgreSQL, the
 * physical limit is the slower of the two limit programs, or the CPU both need together spread over the cores,
 * whichever is larger; and what each document costs the CLI and PostgreSQL.
 */
import { spawnSync } from "node:child_process"
import * as fs from "node:fs"

const ticksPerSecond = Number(spawnSync("getconf", ["CLK_TCK"], { encoding: "utf8" }).stdout.trim()) || 100

/** CPU seconds so far of a process and the children it waited for (PostgreSQL's backends): /proc/<pid>/stat. */
export const cpuSecondsOf = (pid: number | undefined) => {
  if (pid === undefined) return 0
  const fields = fs.readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ")
  return [11, 12, 13, 14].reduce((sum, i) => sum + Number(fields[i]), 0) / ticksPerSecond
}

export const per100k = (seconds: number, documents: number) => Number(((seconds / documents) * 100_000).toFixed(1))

interface Step {
  readonly seconds: number
  readonly cpu: { readonly program: number; readonly postgres: number; readonly simulator: number }
}

/** The figures of issue 14's CPU targets, from the limit programs' and the backfill's measurements. */
export const cpuFigures = (source: Step, sink: Step, backfill: Step, documents: number, cores: number) => {
  // Everything each limit program made the machine do, the simulator's serving included: it shares the cores too.
  const all = (s: Step) => s.cpu.program + s.cpu.postgres + s.cpu.simulator
  const limitCpu = all(source) + all(sink)
  const combinedLimit = Math.max(source.seconds, sink.seconds, limitCpu / cores)
  return {
    combinedLimitSeconds: Number(combinedLimit.toFixed(2)),
    limitCpuSeconds: Number(limitCpu.toFixed(1)),
    backfillOverCombinedLimit: Number((backfill.seconds / combinedLimit).toFixed(2)),
    cliCpuPer100kDocuments: per100k(backfill.cpu.program, documents),
    postgresCpuPer100kDocuments: per100k(backfill.cpu.postgres, documents),
    // The same work done bare on this machine, beside which the two figures above compare across machines.
    sourceProgramCpuPer100kDocuments: per100k(source.cpu.program, documents),
    copyPostgresCpuPer100kDocuments: per100k(sink.cpu.postgres, documents),
    backfillSeconds: Number(backfill.seconds.toFixed(1)),
    backfillCpuSeconds: Number(all(backfill).toFixed(1)),
    cores
  }
}
export type CpuFigures = ReturnType<typeof cpuFigures>

/** One backfill of a bigger store: its time and peak RSS beside the benchmark's own backfill. */
export interface GrowthRun {
  readonly orders: number
  readonly seconds: number
  readonly peakRssMb: number
  readonly timeRatio: number
  readonly rssGrowthPercent: number
  /** `verify` right after that backfill (it compares a window of ids at a time, so its memory should not grow): its peak RSS and growth. */
  readonly verify: { readonly seconds: number; readonly peakRssMb: number; readonly rssGrowthPercent: number; readonly cpu: Step["cpu"] }
}

const verdict = (ok: boolean | undefined) => (ok === undefined ? "not measured" : ok ? "met" : "NOT met")

const times = (a: number, b: number) => (b > 0 ? `${(a / b).toFixed(2)} ×` : "-")

/**
 * What limits each CPU figure, from the same run's measurements: the backfill's time against the CPU it needed on
 * these cores, and each program's CPU against the limit program doing its bare share of the work (a bare reader of
 * the same pages, COPY of the same rows), which is also what makes the figures comparable between machines.
 */
export const cpuLimits = (f: CpuFigures): ReadonlyArray<string> => {
  const cpuBound = f.backfillCpuSeconds / f.cores
  const allowed = f.combinedLimitSeconds * 1.4
  return [
    `backfill: ${f.backfillSeconds} s, of which the CPU it needed (CLI, PostgreSQL and the simulator: ${f.backfillCpuSeconds} CPU-s) ` +
    `takes ${cpuBound.toFixed(1)} s on ${f.cores} cores` +
    (f.backfillOverCombinedLimit > 1.4
      ? `; 1.4 × the combined limit (${allowed.toFixed(1)} s) leaves them ${(allowed * f.cores).toFixed(0)} CPU-s at most, so the CPU per document limits it`
      : ""),
    `CLI: ${f.cliCpuPer100kDocuments} CPU-s per 100,000 documents, ${times(f.cliCpuPer100kDocuments, f.sourceProgramCpuPer100kDocuments)} ` +
    `the bare reader's ${f.sourceProgramCpuPer100kDocuments} (the same pages fetched and parsed): the rest is the load (the pages' text ` +
    `written to PostgreSQL, the run's statements) and Effect's runtime`,
    `PostgreSQL: ${f.postgresCpuPer100kDocuments} CPU-s per 100,000 documents, ${times(f.postgresCpuPer100kDocuments, f.copyPostgresCpuPer100kDocuments)} ` +
    `COPY's ${f.copyPostgresCpuPer100kDocuments} for the same rows: the rest is the pages' JSON parsed and staged, the merges' conflict ` +
    `checks and triggers, and the daily sums and ANALYZE at the end`
  ]
}

/** The rows of the targets table for the CPU figures and every growth size. */
export const cpuTargetRows = (f: CpuFigures, cores: number, growth: ReadonlyArray<GrowthRun>) => ({
  "backfill ≤ 1.4 × combined limit max(source, sink, limits' CPU / cores)": {
    value: `${f.backfillOverCombinedLimit} × ${f.combinedLimitSeconds} s (limits' CPU ${f.limitCpuSeconds} s / ${cores} cores)`,
    target: verdict(f.backfillOverCombinedLimit <= 1.4)
  },
  "CLI ≤ 10 CPU-s per 100,000 documents": { value: `${f.cliCpuPer100kDocuments} CPU-s`, target: verdict(f.cliCpuPer100kDocuments <= 10) },
  "PostgreSQL ≤ 25 CPU-s per 100,000 documents": { value: `${f.postgresCpuPer100kDocuments} CPU-s`, target: verdict(f.postgresCpuPer100kDocuments <= 25) },
  ...Object.fromEntries(growth.map((g) => [
    `backfill of ${g.orders} orders: peak RSS < 300 MB, growth < 20%`,
    { value: `${g.peakRssMb} MB, ${g.rssGrowthPercent}% (time ${g.seconds} s, × ${g.timeRatio})`, target: verdict(g.peakRssMb < 300 && g.rssGrowthPercent < 20) }
  ])),
  ...Object.fromEntries(growth.map((g) => [
    `verify after the backfill of ${g.orders} orders: peak RSS < 300 MB, growth < 20%`,
    { value: `${g.verify.peakRssMb} MB, ${g.verify.rssGrowthPercent}% (${g.verify.seconds} s)`, target: verdict(g.verify.peakRssMb < 300 && g.verify.rssGrowthPercent < 20) }
  ]))
})
