// English is bundled with the first page: it is the fallback of every other language and
// the catalogue keys are checked against (i18next.d.ts). Every other language loads when it
// is chosen, as one chunk of its own (vite.config.ts), so that a language added costs the
// first load nothing.
import enActions from './locales/en/actions.json';
import enAudit from './locales/en/audit.json';
import enCommon from './locales/en/common.json';
import enDatabases from './locales/en/databases.json';
import enFleet from './locales/en/fleet.json';
import enOverview from './locales/en/overview.json';
import enPipelines from './locales/en/pipelines.json';
import enRequestDetail from './locales/en/requestDetail.json';
import enRequests from './locales/en/requests.json';
import enServices from './locales/en/services.json';
import enSettings from './locales/en/settings.json';
import enSignIn from './locales/en/signIn.json';

/** One namespace per feature (and `common` for the shell, `actions` for retry/cancel). */
export const english = {
  actions: enActions,
  audit: enAudit,
  common: enCommon,
  databases: enDatabases,
  fleet: enFleet,
  overview: enOverview,
  pipelines: enPipelines,
  requestDetail: enRequestDetail,
  requests: enRequests,
  services: enServices,
  settings: enSettings,
  signIn: enSignIn,
} as const;

export type Namespace = keyof typeof english;
export const NAMESPACES = Object.keys(english) as Namespace[];

/** Every language shown, each a folder under locales/ (catalogue.test.ts checks both agree). */
export const LANGUAGES = ['en', 'ja'] as const;
export type Language = (typeof LANGUAGES)[number];

const others = import.meta.glob<{ default: Record<string, unknown> }>([
  './locales/*/*.json',
  '!./locales/en/*.json',
]);

/** A namespace of a language other than English, loaded on demand. */
export async function loadNamespace(
  language: string,
  namespace: string,
): Promise<Record<string, unknown>> {
  const load = others[`./locales/${language}/${namespace}.json`];
  if (!load) throw new Error(`No ${namespace} catalogue for ${language}`);
  return (await load()).default;
}
