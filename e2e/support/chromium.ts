/**
 * Debian's Chromium and the flags every browser run here uses: no sandbox (tests run as root), no GPU, and
 * none of Chromium's own background traffic, so only the page's requests are on the wire.
 */
export const CHROMIUM_PATH = "/usr/bin/chromium";
export const CHROMIUM_FLAGS = [
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];
