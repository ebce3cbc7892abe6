/** Debian's Chromium (CI installs it), and the flags every test runs it headless with. */
export const CHROMIUM = '/usr/bin/chromium';

export const HEADLESS_FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-dev-shm-usage',
  '--disable-component-update',
  '--no-first-run',
  '--disable-sync',
] as const;
