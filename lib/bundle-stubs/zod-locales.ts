/**
 * Stands in for zod's `locales/index.js` in the Lambda bundles (see lib/bundle.ts): zod
 * re-exports every locale (~0.25 MB) from each of its entry points, and Handoff uses only
 * the English messages zod sets by default. `z.locales.<other>` is undefined on Lambda.
 */
export { default as en } from 'zod/v4/locales/en.js';
