/** Bundles the CLI into `outDir` (default dist/); resolves to the entry, `<outDir>/bin/shopsync.js`. */
export declare const buildCli: (outDir?: string) => Promise<string>
