import { useQueryClient } from '@tanstack/react-query';
import { useNavigate } from 'react-router';
import { useTranslation } from 'react-i18next';
import { signOut, useAuth, useRoleHere } from '../core/auth.ts';
import { serviceShown } from '../core/service-roles.ts';
import { usePreference, type Theme, type ZoneChoice } from '../core/preferences.ts';
import { LANGUAGES, type Language } from '../i18n/catalogues.ts';
import { paths } from '../paths.ts';
import { useVersion } from '../shared/queries.ts';

// The header's right-hand side: who is signed in, where, and the view's pickers.

const PICKER =
  'rounded border border-slate-600 bg-slate-800 px-1 py-0.5 text-xs text-slate-100 focus-visible:outline-2 focus-visible:outline-teal-400';

/**
 * A labelled select of the header, named by its words in the common catalogue
 * (`<name>.label`); the label is read aloud always, shown from sm up.
 */
function HeaderPicker<T extends string>({
  name,
  value,
  options,
  onChange,
}: {
  name: 'language' | 'zone' | 'theme';
  value: T;
  options: readonly { value: T; label: string; lang?: string }[];
  onChange: (value: T) => void;
}) {
  const { t } = useTranslation();
  return (
    <label className="flex items-center gap-1 text-xs text-slate-300">
      <span className="sr-only sm:not-sr-only">{t(`${name}.label`)}</span>
      <select
        value={value}
        data-testid={`${name}-picker`}
        onChange={(event) => onChange(event.target.value as T)}
        className={PICKER}
      >
        {options.map((o) => (
          <option key={o.value} value={o.value} lang={o.lang}>
            {o.label}
          </option>
        ))}
      </select>
    </label>
  );
}

const ZONES = ['service', 'browser', 'utc'] as const satisfies readonly ZoneChoice[];
const THEMES = ['system', 'light', 'dark'] as const satisfies readonly Theme[];

function ViewPickers() {
  const { t, i18n } = useTranslation();
  const [theme, setTheme] = usePreference('theme');
  const [zone, setZone] = usePreference('timeZone');
  const language = (LANGUAGES as readonly string[]).includes(i18n.resolvedLanguage ?? '')
    ? (i18n.resolvedLanguage as Language)
    : 'en';
  return (
    <>
      <HeaderPicker<Language>
        name="language"
        value={language}
        // Each language named in itself, so that whoever cannot read the current one finds theirs.
        options={LANGUAGES.map((l) => ({ value: l, label: t(`language.${l}`), lang: l }))}
        onChange={(l) => void i18n.changeLanguage(l)}
      />
      <HeaderPicker<ZoneChoice>
        name="zone"
        value={zone}
        options={ZONES.map((z) => ({ value: z, label: t(`zone.${z}`) }))}
        onChange={setZone}
      />
      <HeaderPicker<Theme>
        name="theme"
        value={theme}
        options={THEMES.map((v) => ({ value: v, label: t(`theme.${v}`) }))}
        onChange={setTheme}
      />
    </>
  );
}

export function Identity({ id, open }: { id: string; open: boolean }) {
  const { t } = useTranslation();
  const auth = useAuth();
  // The role on the service looked at (contract section 12), which decides what it may do.
  const here = useRoleHere();
  // The service by its name, as a person reads it ("operator on Tokyo prod"), not its id.
  const onService = here && serviceShown(here);
  const version = useVersion();
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  if (!auth) return null;
  const leave = async () => {
    const atProvider = await signOut(auth);
    queryClient.clear();
    // The provider's own sign-out page, which sends the browser back to our sign-in.
    if (atProvider) window.location.assign(atProvider);
    else await navigate(paths.signIn());
  };
  return (
    // On a phone this is a panel the header's menu button opens; from sm up, always shown.
    <div
      id={id}
      className={`${open ? 'flex' : 'hidden'} w-full flex-wrap items-center gap-x-4 gap-y-2 text-xs text-slate-300 sm:flex sm:w-auto sm:gap-y-1`}
    >
      <span data-testid="identity">
        {auth.kind === 'session' ? (
          <>
            <span className="font-semibold text-white">{auth.userName}</span> ·{' '}
            <span data-testid="role-here">
              {here?.several && onService !== undefined
                ? t('roleOnService', { role: t(`roles.${here.role}`), service: onService })
                : t(`roles.${here?.role ?? auth.role}`)}
            </span>
          </>
        ) : (
          <span className="font-semibold text-white">{t('apiKeyUser')}</span>
        )}
      </span>
      <span title={t('serverTitle')}>
        {auth.kind === 'session' ? auth.serverName : window.location.host}
      </span>
      <span title={t('versionTitle')} data-testid="service-version">
        {t('version', { version: version.data ?? '…' })}
      </span>
      <ViewPickers />
      <button
        type="button"
        onClick={() => void leave()}
        className="rounded border border-slate-600 px-2 py-0.5 text-slate-100 hover:bg-slate-700 focus-visible:outline-2 focus-visible:outline-teal-400"
      >
        {t('signOut')}
      </button>
    </div>
  );
}
