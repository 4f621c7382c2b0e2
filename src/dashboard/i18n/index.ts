import i18n from 'i18next';
import LanguageDetector from 'i18next-browser-languagedetector';
import resourcesToBackend from 'i18next-resources-to-backend';
import { initReactI18next } from 'react-i18next';
import { english, LANGUAGES, loadNamespace, NAMESPACES, type Language } from './catalogues.ts';

const LANGUAGE_STORAGE_KEY = 'pipeline-dashboard.language';

// The language follows the browser until the user picks one in the header; the pick is
// kept in localStorage beside the other view preferences. English is bundled; another
// language's catalogues load before it is shown (main.tsx waits for `i18nReady`, and
// changeLanguage for its own).
const i18nReady = i18n
  .use(LanguageDetector)
  .use(initReactI18next)
  .use(resourcesToBackend(loadNamespace))
  .init({
    resources: { en: english },
    partialBundledLanguages: true,
    supportedLngs: LANGUAGES,
    // Japanese browsers send ja-JP: read it as ja.
    nonExplicitSupportedLngs: true,
    load: 'languageOnly',
    fallbackLng: 'en',
    defaultNS: 'common',
    ns: NAMESPACES,
    detection: {
      order: ['localStorage', 'navigator'],
      lookupLocalStorage: LANGUAGE_STORAGE_KEY,
      caches: ['localStorage'],
    },
    // React escapes what it renders; escaping here too would show &amp; to the user.
    interpolation: { escapeValue: false },
    // Never suspend: a language is shown once its catalogues are in, and English, always
    // bundled, is the fallback meanwhile.
    react: { useSuspense: false },
    returnNull: false,
  });

// Screen readers pick their voice from <html lang>: keep it the language shown.
const markLanguage = (language: string) => {
  if (typeof document !== 'undefined') document.documentElement.lang = language;
};
i18n.on('languageChanged', () => markLanguage(currentLanguage()));
if (i18n.isInitialized) markLanguage(currentLanguage());

/** The language the dashboard shows now (one of the catalogues). */
function currentLanguage(): Language {
  const resolved = i18n.resolvedLanguage ?? i18n.language;
  return (LANGUAGES as readonly string[]).includes(resolved) ? (resolved as Language) : 'en';
}

export { i18n, i18nReady };
