import { useTranslation } from 'react-i18next';
import { LANGUAGES, type Language } from '../i18n/catalogues.ts';

/**
 * The language choice where there is no header yet (sign-in): each language named in itself,
 * so that whoever cannot read the current one finds theirs.
 */
export function LanguagePicker() {
  const { t, i18n } = useTranslation();
  const current = (LANGUAGES as readonly string[]).includes(i18n.resolvedLanguage ?? '')
    ? (i18n.resolvedLanguage as Language)
    : 'en';
  return (
    <label className="flex items-center gap-1 text-xs text-slate-600 dark:text-slate-300">
      <span className="sr-only">{t('language.label')}</span>
      <select
        value={current}
        data-testid="language-picker"
        onChange={(event) => void i18n.changeLanguage(event.target.value)}
        className="rounded border border-slate-300 bg-white px-1 py-0.5 text-xs text-slate-800 focus-visible:outline-2 focus-visible:outline-teal-600 dark:border-slate-600 dark:bg-slate-800 dark:text-slate-100"
      >
        {LANGUAGES.map((language) => (
          <option key={language} value={language} lang={language}>
            {t(`language.${language}`)}
          </option>
        ))}
      </select>
    </label>
  );
}
