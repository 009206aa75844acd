/** shopsync's version; a test holds it to package.json (a constant survives bundling, reading the file would not). */
export const SHOPSYNC_VERSION = "0.1.0"

/** Sent on every request to both services: managed hosts' firewalls block requests without one, or with a library's. */
export const USER_AGENT = `shopsync/${SHOPSYNC_VERSION}`
