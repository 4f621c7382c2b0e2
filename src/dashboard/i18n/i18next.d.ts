import 'i18next';
import type { english } from './catalogues.ts';

// Keys are checked at compile time against the English catalogue: a typo or a key that
// was never written fails `npm run typecheck`, not a user's page.
declare module 'i18next' {
  interface CustomTypeOptions {
    defaultNS: 'common';
    resources: typeof english;
  }
}
