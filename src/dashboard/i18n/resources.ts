// Every catalogue, bundled: the dashboard is served whole, so a language switch needs no
// request and a missing file fails the build rather than a user's page.
import enActions from './locales/en/actions.json';
import enAudit from './locales/en/audit.json';
import enCommon from './locales/en/common.json';
import enDatabases from './locales/en/databases.json';
import enOverview from './locales/en/overview.json';
import enPipelines from './locales/en/pipelines.json';
import enRequestDetail from './locales/en/requestDetail.json';
import enRequests from './locales/en/requests.json';
import enServices from './locales/en/services.json';
import enSettings from './locales/en/settings.json';
import enSignIn from './locales/en/signIn.json';
import jaActions from './locales/ja/actions.json';
import jaAudit from './locales/ja/audit.json';
import jaCommon from './locales/ja/common.json';
import jaDatabases from './locales/ja/databases.json';
import jaOverview from './locales/ja/overview.json';
import jaPipelines from './locales/ja/pipelines.json';
import jaRequestDetail from './locales/ja/requestDetail.json';
import jaRequests from './locales/ja/requests.json';
import jaServices from './locales/ja/services.json';
import jaSettings from './locales/ja/settings.json';
import jaSignIn from './locales/ja/signIn.json';

/** One namespace per feature (and `common` for the shell, `actions` for retry/cancel). */
export const resources = {
  en: {
    actions: enActions,
    audit: enAudit,
    common: enCommon,
    databases: enDatabases,
    overview: enOverview,
    pipelines: enPipelines,
    requestDetail: enRequestDetail,
    requests: enRequests,
    services: enServices,
    settings: enSettings,
    signIn: enSignIn,
  },
  ja: {
    actions: jaActions,
    audit: jaAudit,
    common: jaCommon,
    databases: jaDatabases,
    overview: jaOverview,
    pipelines: jaPipelines,
    requestDetail: jaRequestDetail,
    requests: jaRequests,
    services: jaServices,
    settings: jaSettings,
    signIn: jaSignIn,
  },
} as const;

export type Language = keyof typeof resources;
export const LANGUAGES = Object.keys(resources) as Language[];
