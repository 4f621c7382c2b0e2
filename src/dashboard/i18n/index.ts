import i18n from 'i18next';
import LanguageDetector from 'i18next-browser-languagedetector';
import { initReactI18next } from 'react-i18next';
import { LANGUAGES, resources, type Language } from './resources.ts';

const LANGUAGE_STORAGE_KEY = 'pipeline-dashboard.language';

// The language follows the browser until the user picks one in the header; the pick is
// kept in localStorage beside the other view preferences.
void i18n
  .use(LanguageDetector)
  .use(initReactI18next)
  .init({
    resources,
    supportedLngs: LANGUAGES,
    // Japanese browsers send ja-JP: read it as ja.
    nonExplicitSupportedLngs: true,
    load: 'languageOnly',
    fallbackLng: 'en',
    defaultNS: 'common',
    ns: Object.keys(resources.en),
    detection: {
      order: ['localStorage', 'navigator'],
      lookupLocalStorage: LANGUAGE_STORAGE_KEY,
      caches: ['localStorage'],
    },
    // React escapes what it renders; escaping here too would show &amp; to the user.
    interpolation: { escapeValue: false },
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

export { i18n };
