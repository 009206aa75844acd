/**
 * How this CLI was started, for the commands its hints suggest, so that they run as printed: `npx shopsync` under npx
 * (the README's way in a checkout), `npm run --silent shopsync --` under npm run, else `shopsync` (on the PATH through
 * `npm link`, or an image's entrypoint).
 */
export const shopsyncCommand = (env: Readonly<Record<string, string | undefined>> = process.env): string =>
  env.npm_command === "exec"
    ? "npx shopsync"
    : env.npm_lifecycle_event === "shopsync"
    ? "npm run --silent shopsync --"
    : "shopsync"
