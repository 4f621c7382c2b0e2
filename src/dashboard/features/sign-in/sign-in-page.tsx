import { useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { Navigate, useNavigate, useSearchParams } from 'react-router';
import { HttpError, ManagementConsoleClient, PipelineClient } from '../../../kit/index.ts';
import { NO_COOKIES, setAuth, useAuth, wasExpired, type Auth } from '../../core/auth.ts';
import { Button } from '../../components/button.tsx';
import { ErrorView } from '../../components/error-view.tsx';
import { Field, TextInput } from '../../components/fields.tsx';
import { paths } from '../../paths.ts';
import { safeNextPath } from './next.ts';
import { SingleSignOn } from './single-sign-on.tsx';
import { LanguagePicker } from '../../components/language-picker.tsx';

type Mode = 'password' | 'key';

type BoxName = 'username' | 'password' | 'apikey';

/** A text box of the form: its name, its words in the catalogue, how the browser fills it. */
interface Box {
  readonly name: BoxName;
  readonly label: 'userName' | 'password' | 'apiKey';
  readonly hint?: 'apiKeyHint';
  readonly type?: 'password';
  readonly autoComplete: string;
}

/** The boxes of each way of signing in, in their order. */
const BOXES: Readonly<Record<Mode, readonly Box[]>> = {
  password: [
    { name: 'username', label: 'userName', autoComplete: 'username' },
    { name: 'password', label: 'password', type: 'password', autoComplete: 'current-password' },
  ],
  key: [
    { name: 'apikey', label: 'apiKey', hint: 'apiKeyHint', type: 'password', autoComplete: 'off' },
  ],
};

/** The management console's code for a name and password it does not know. */
const LOGIN_FAILED = 3002;

/**
 * A refusal of the server this page knows, in the catalogue's words (the server writes
 * English); undefined for any other, which is shown with the server's own Code and Message.
 */
export function refusalKey(
  mode: Mode,
  error: unknown,
): 'refused.password' | 'refused.tooMany' | 'refused.key' | undefined {
  if (!(error instanceof HttpError)) return undefined;
  if (error.status === 429) return 'refused.tooMany';
  if (mode === 'password' && error.code === LOGIN_FAILED) return 'refused.password';
  if (mode === 'key' && error.status === 401) return 'refused.key';
  return undefined;
}

export function SignInPage() {
  const { t } = useTranslation(['signIn', 'common']);
  const auth = useAuth();
  const [search] = useSearchParams();
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const [mode, setMode] = useState<Mode>('password');
  const [typed, setTyped] = useState<Record<BoxName, string>>({
    username: '',
    password: '',
    apikey: '',
  });
  const { username: userName, password, apikey: apiKey } = typed;
  const [remember, setRemember] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>();
  // Only a path of this dashboard may follow sign-in; anything else goes to the overview.
  const next = safeNextPath(search.get('next')) ?? paths.overview();
  if (auth) return <Navigate to={next} replace />;

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setBusy(true);
    setError(undefined);
    try {
      let signedIn: Auth;
      if (mode === 'password') {
        const login = await new ManagementConsoleClient(NO_COOKIES).login({
          userName,
          password,
          getRole: true,
        });
        signedIn = {
          kind: 'session',
          sessionId: login.sessionId,
          userName,
          role: login.role ?? 'operator',
          serverName: login.serverName,
          serverId: login.serverId,
        };
      } else {
        const key = apiKey.trim();
        await new PipelineClient({ ...NO_COOKIES, apiKey: key }).version();
        signedIn = { kind: 'apiKey', apiKey: key };
      }
      queryClient.clear();
      setAuth(signedIn, remember);
      await navigate(next, { replace: true });
    } catch (caught) {
      setError(caught);
    } finally {
      setBusy(false);
    }
  };

  const tab = (value: Mode, label: string) => (
    <button
      type="button"
      role="tab"
      aria-selected={mode === value}
      onClick={() => setMode(value)}
      // Japanese breaks between phrases (ユーザー名と / パスワード), never inside a word.
      className={`flex-1 rounded-md px-3 py-1.5 text-sm font-medium [word-break:auto-phrase] focus-visible:outline-2 focus-visible:outline-teal-600 ${
        mode === value
          ? 'bg-white text-slate-900 shadow dark:bg-slate-700 dark:text-white'
          : 'text-slate-600 dark:text-slate-300'
      }`}
    >
      {label}
    </button>
  );

  const passwordTab = tab('password', t('withPassword'));
  const keyTab = tab('key', t('withKey'));
  return (
    <main className="flex min-h-screen items-center justify-center bg-slate-100 px-4 dark:bg-slate-950">
      <div className="w-full max-w-sm rounded-xl border border-slate-200 bg-white p-6 shadow-sm dark:border-slate-800 dark:bg-slate-900">
        <div className="mb-4 flex items-center gap-2">
          <img src="/favicon.svg" alt="" className="size-7" />
          <h1 className="text-lg font-semibold text-slate-900 dark:text-white">{t('title')}</h1>
          <span className="ml-auto">
            <LanguagePicker />
          </span>
        </div>
        <p className="mb-4 text-sm text-slate-600 dark:text-slate-300">{t('intro')}</p>
        {wasExpired() ? (
          <p
            role="status"
            className="mb-4 rounded-md bg-amber-50 px-3 py-2 text-sm text-amber-900 dark:bg-amber-950 dark:text-amber-100"
          >
            {t('expired')}
          </p>
        ) : null}
        <SingleSignOn next={next} />
        <div
          role="tablist"
          aria-label={t('methods')}
          className="mb-4 flex gap-1 rounded-lg bg-slate-100 p-1 dark:bg-slate-800"
        >
          {passwordTab}
          {keyTab}
        </div>
        <form onSubmit={(event) => void submit(event)} className="flex flex-col gap-3">
          {BOXES[mode].map((box, i) => (
            <Field key={box.name} label={t(box.label)} hint={box.hint && t(box.hint)}>
              <TextInput
                name={box.name}
                type={box.type}
                autoComplete={box.autoComplete}
                required
                value={typed[box.name]}
                onChange={(e) => setTyped((was) => ({ ...was, [box.name]: e.target.value }))}
                // The first box of a way of signing in takes the focus when it is chosen.
                autoFocus={i === 0}
              />
            </Field>
          ))}
          <label className="flex items-start gap-2 text-sm text-slate-700 dark:text-slate-200">
            <input
              type="checkbox"
              checked={remember}
              onChange={(e) => setRemember(e.target.checked)}
              className="mt-0.5"
            />
            <span>
              {t('remember')}
              <span className="block text-xs text-slate-500 dark:text-slate-400">
                {t('rememberHint')}
              </span>
            </span>
          </label>
          {error ? (
            refusalKey(mode, error) ? (
              <p
                role="alert"
                data-testid="sign-in-refused"
                className="rounded-md border border-red-300 bg-red-50 px-3 py-2 text-sm text-red-900 dark:border-red-800 dark:bg-red-950 dark:text-red-100"
              >
                {t(refusalKey(mode, error) ?? 'refused.password')}
                {error instanceof HttpError && error.code !== undefined ? (
                  <span className="ml-2 font-mono text-xs">
                    {t('common:error.code', { code: error.code })}
                  </span>
                ) : null}
              </p>
            ) : (
              <ErrorView error={error} />
            )
          ) : null}
          <Button type="submit" variant="primary" disabled={busy}>
            {busy ? t('submitting') : t('submit')}
          </Button>
        </form>
      </div>
    </main>
  );
}
