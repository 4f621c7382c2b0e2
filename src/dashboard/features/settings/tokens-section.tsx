import { useQuery } from '@tanstack/react-query';
import { useId, useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import {
  ROLE_ORDER,
  roleAtLeast,
  type NewToken,
  type PersonalToken,
  type RevokedToken,
  type Role,
} from '../../../kit/index.ts';
import { sessionIdOf, useAuth } from '../../core/auth.ts';
import { notify } from '../../core/notices.ts';
import { serviceRolesQuery } from '../../core/service-roles.ts';
import { Button } from '../../components/button.tsx';
import { PRIORITY } from '../../components/data-table.tsx';
import { ErrorView } from '../../components/error-view.tsx';
import { Options, Select, TextInput } from '../../components/fields.tsx';
import { Spinner } from '../../components/spinner.tsx';
import { Instant } from '../../components/time.tsx';
import { serviceNameOf, useServices } from '../../shared/services.ts';
import { useCreateToken, usePersonalTokens, useRevokeToken } from './queries.ts';
import { ServerConfirm } from './server-confirm.tsx';
import { SettingsTable } from './settings-table.tsx';

const MAX_DAYS = 365;

/** The value of a new token, shown once with a copy button. */
function ShownOnce({ made, onDone }: { made: NewToken; onDone: () => void }) {
  const { t } = useTranslation('settings');
  return (
    <div
      role="status"
      className="flex flex-col gap-2 rounded-md border border-amber-300 bg-amber-50 p-3 dark:border-amber-700 dark:bg-amber-950"
    >
      <p className="font-medium">{t('tokens.shownOnce', { name: made.name })}</p>
      <code
        data-testid="new-token"
        className="rounded bg-white px-2 py-1 font-mono text-xs break-all dark:bg-slate-900"
      >
        {made.token}
      </code>
      <div className="flex flex-wrap gap-2">
        <Button
          size="sm"
          onClick={() =>
            void navigator.clipboard
              .writeText(made.token)
              .then(() => notify({ kind: 'success', text: t('tokens.copied') }))
          }
        >
          {t('tokens.copy')}
        </Button>
        <Button size="sm" onClick={onDone}>
          {t('tokens.done')}
        </Button>
      </div>
    </div>
  );
}

function CreateForm({ onMade }: { onMade: (made: NewToken) => void }) {
  const { t } = useTranslation(['settings', 'common']);
  const auth = useAuth();
  const { services } = useServices();
  const roles = useQuery(serviceRolesQuery(sessionIdOf(auth)));
  const create = useCreateToken();
  const id = useId();
  const [name, setName] = useState('');
  const [days, setDays] = useState('30');
  const [service, setService] = useState('');
  const defaultRole: Role = auth?.kind === 'session' ? auth.role : 'viewer';
  // Theirs on the chosen service, else their default role: no token may be above it.
  const own =
    (service ? roles.data?.find((r) => r.service === service)?.role : undefined) ?? defaultRole;
  const [role, setRole] = useState<Role | ''>('');
  const chosen: Role = role !== '' && roleAtLeast(own, role) ? role : own;
  const daysNumber = Number(days);
  const daysValid = /^\d{1,3}$/.test(days) && daysNumber >= 1 && daysNumber <= MAX_DAYS;
  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (!name.trim() || !daysValid) return;
    create.mutate(
      { name: name.trim(), expiresInDays: daysNumber, role: chosen, service },
      {
        onSuccess: (made) => {
          setName('');
          onMade(made);
        },
      },
    );
  };
  return (
    <form
      onSubmit={submit}
      aria-labelledby={`${id}-title`}
      className="flex flex-col gap-3 border-t border-slate-100 pt-3 dark:border-slate-800"
    >
      <h3 id={`${id}-title`} className="text-sm font-medium">
        {t('tokens.create')}
      </h3>
      <div className="grid gap-3 sm:grid-cols-2">
        <label className="flex flex-col gap-1 text-sm">
          <span className="font-medium">{t('tokens.name')}</span>
          <TextInput
            value={name}
            required
            maxLength={64}
            onChange={(e) => setName(e.target.value)}
          />
        </label>
        <label className="flex flex-col gap-1 text-sm">
          <span className="font-medium">{t('tokens.days')}</span>
          <TextInput
            type="number"
            min={1}
            max={MAX_DAYS}
            required
            value={days}
            aria-invalid={!daysValid}
            aria-describedby={`${id}-days`}
            onChange={(e) => setDays(e.target.value)}
          />
          <span id={`${id}-days`} className="text-xs text-slate-500 dark:text-slate-400">
            {t('tokens.daysHint', { max: MAX_DAYS })}
          </span>
        </label>
        <label className="flex flex-col gap-1 text-sm">
          <span className="font-medium">{t('tokens.role')}</span>
          <Select
            value={chosen}
            aria-describedby={`${id}-role`}
            onChange={(e) => setRole(e.target.value as Role)}
          >
            <Options
              values={ROLE_ORDER.filter((r) => roleAtLeast(own, r))}
              label={(r) => t(`common:roles.${r}`)}
            />
          </Select>
          <span id={`${id}-role`} className="text-xs text-slate-500 dark:text-slate-400">
            {t('tokens.roleHint', { role: t(`common:roles.${own}`) })}
          </span>
        </label>
        <label className="flex flex-col gap-1 text-sm">
          <span className="font-medium">{t('tokens.service')}</span>
          <Select value={service} onChange={(e) => setService(e.target.value)}>
            <option value="">{t('tokens.everyService')}</option>
            {services.map((s) => (
              <option key={s.id} value={s.id}>
                {s.name || s.id}
              </option>
            ))}
          </Select>
        </label>
      </div>
      <div>
        <Button type="submit" variant="primary" disabled={create.isPending}>
          {t('tokens.createGo')}
        </Button>
      </div>
      {create.error ? <ErrorView error={create.error} /> : null}
    </form>
  );
}

/** The gap after each cell. */
const CELL_GAP = 'pr-2';

/** The token list's columns before its actions, in order. */
const TOKEN_COLUMNS = ['name', 'role', 'service', 'created', 'expires', 'lastUsed'] as const;

/**
 * Columns a phone leaves out: when a token was made (it matters least), and its role and
 * service, which go under its name there with its Revoke button. Two instants whose hours
 * have two digits and whose AM or PM may not wrap away ("10:43:03 PM") leave no room for
 * more at 390 px, or at 360.
 */
const ON_WIDER_SCREENS: ReadonlySet<(typeof TOKEN_COLUMNS)[number]> = new Set([
  'role',
  'service',
  'created',
]);

function TokenList({
  tokens,
  caption,
  none,
}: {
  tokens: readonly PersonalToken[];
  /** The table's name: the person's own, or whose an administrator looks at. */
  caption: string;
  /** What an empty list says. */
  none: string;
}) {
  const { t } = useTranslation(['settings', 'common']);
  const { services } = useServices();
  const revoke = useRevokeToken();
  const [confirm, setConfirm] = useState<PersonalToken | null>(null);
  if (tokens.length === 0) return <p className="text-slate-600 dark:text-slate-300">{none}</p>;
  // Inside the table's box, where it has always been in the page.
  const revokeDialog = (
    <ServerConfirm
      open={confirm !== null}
      words={{
        title: t('tokens.revokeTitle', { name: confirm?.name ?? '' }),
        text: t('tokens.revokeText'),
        keep: t('tokens.revokeKeep'),
        go: t('tokens.revokeGo'),
      }}
      change={revoke}
      onClose={() => setConfirm(null)}
      onGo={() => (confirm ? revoke.mutateAsync(confirm.id) : Promise.resolve())}
      done={confirm ? t('tokens.revoked', { name: confirm.name }) : undefined}
    />
  );
  return (
    <SettingsTable
      caption={caption}
      headers={[
        ...TOKEN_COLUMNS.map((column) => t(`tokens.${column}`)),
        <span className="sr-only">{t('tokens.actions')}</span>,
      ]}
      // The actions' column too: its button goes under the token's name on a phone.
      headerClasses={[
        ...TOKEN_COLUMNS.map((column) =>
          ON_WIDER_SCREENS.has(column) ? `${PRIORITY.medium} ${CELL_GAP}` : CELL_GAP,
        ),
        PRIORITY.medium,
      ]}
      after={revokeDialog}
    >
      {tokens.map((token) => {
        const revokeButton = (
          <Button
            size="sm"
            variant="danger"
            aria-label={t('tokens.revokeNamed', { name: token.name })}
            onClick={() => setConfirm(token)}
          >
            {t('tokens.revoke')}
          </Button>
        );
        const role = t(`common:roles.${token.role}`);
        // Its service by name, as a person reads it (the id is the server's word for it).
        const service =
          token.service === null
            ? t('tokens.everyService')
            : serviceNameOf(services, token.service);
        return (
          <tr key={token.id} className="border-t border-slate-100 dark:border-slate-800">
            <th scope="row" className={`py-1 font-medium [overflow-wrap:anywhere] ${CELL_GAP}`}>
              {token.name}
              {/* On a phone its role, service and button go under the name, so that no
                  column is cut off. */}
              <div className="mt-0.5 font-normal text-slate-600 sm:hidden dark:text-slate-300">
                {t('tokens.roleOn', { role, service })}
              </div>
              <div className="mt-1 font-normal sm:hidden">{revokeButton}</div>
            </th>
            <td className={`${PRIORITY.medium} ${CELL_GAP}`}>{role}</td>
            <td
              className={`${PRIORITY.medium} ${CELL_GAP}`}
              data-service={token.service ?? undefined}
            >
              {service}
            </td>
            <td className={`${PRIORITY.medium} ${CELL_GAP}`}>
              <Instant iso={token.createdAt} />
            </td>
            <td className={CELL_GAP}>
              <Instant iso={token.expiresAt} />
            </td>
            <td className={CELL_GAP}>
              {token.lastUsedAt ? <Instant iso={token.lastUsedAt} /> : t('tokens.never')}
            </td>
            <td className={PRIORITY.medium}>{revokeButton}</td>
          </tr>
        );
      })}
    </SettingsTable>
  );
}

/** How long a revoked token stays listed: the server's REVOKED_SHOWN_DAYS. */
const REVOKED_SHOWN_DAYS = 30;

/** Tokens revoked lately, each with when and why (issue 39: a person sees what ended theirs). */
function RevokedList({ revoked }: { revoked: readonly RevokedToken[] }) {
  const { t } = useTranslation('settings');
  if (revoked.length === 0) return null;
  return (
    <SettingsTable
      caption={t('tokens.revokedTitle', { days: REVOKED_SHOWN_DAYS })}
      headers={[t('tokens.name'), t('tokens.revokedAt'), t('tokens.revokedWhy')]}
      headerClasses={[CELL_GAP, CELL_GAP, '']}
    >
      {revoked.map((token) => (
        <tr key={token.id} className="border-t border-slate-100 dark:border-slate-800">
          <th scope="row" className={`py-1 font-medium [overflow-wrap:anywhere] ${CELL_GAP}`}>
            {token.name}
          </th>
          <td className={CELL_GAP}>
            <Instant iso={token.revokedAt} />
          </td>
          <td>{t(`tokens.by.${token.revokedBy}`, { name: token.revokedByName ?? '' })}</td>
        </tr>
      ))}
    </SettingsTable>
  );
}

/** An administrator's look at another person's tokens, to revoke what should end. */
function OthersTokens() {
  const { t } = useTranslation('settings');
  const id = useId();
  const [draft, setDraft] = useState('');
  const [user, setUser] = useState<string | undefined>(undefined);
  const tokens = usePersonalTokens(user);
  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (draft.trim()) setUser(draft.trim());
  };
  return (
    <div className="flex flex-col gap-3 border-t border-slate-100 pt-3 dark:border-slate-800">
      <h3 id={`${id}-title`} className="text-sm font-medium">
        {t('tokens.others')}
      </h3>
      <p className="text-xs text-slate-500 dark:text-slate-400">{t('tokens.othersHint')}</p>
      <form
        onSubmit={submit}
        aria-labelledby={`${id}-title`}
        className="flex flex-wrap items-end gap-2"
      >
        <label className="flex flex-col gap-1 text-sm">
          <span className="font-medium">{t('tokens.userName')}</span>
          <TextInput
            value={draft}
            required
            maxLength={64}
            autoComplete="off"
            onChange={(e) => setDraft(e.target.value)}
          />
        </label>
        <Button type="submit">{t('tokens.show')}</Button>
      </form>
      {user === undefined ? null : tokens.error ? (
        <ErrorView error={tokens.error} />
      ) : tokens.data ? (
        <>
          <TokenList
            tokens={tokens.data.tokens}
            caption={t('tokens.of', { user })}
            none={t('tokens.noneOf', { user })}
          />
          <RevokedList revoked={tokens.data.revoked} />
        </>
      ) : (
        <Spinner />
      )}
    </div>
  );
}

/**
 * A signed-in person's own API tokens (contract section 12): create, list, revoke, and those
 * revoked lately with why; an administrator also looks at and revokes anyone's.
 */
export function TokensSection() {
  const { t } = useTranslation('settings');
  const auth = useAuth();
  const tokens = usePersonalTokens();
  const [made, setMade] = useState<NewToken | null>(null);
  return (
    <div className="flex flex-col gap-3 py-2 text-sm">
      <p className="text-xs text-slate-500 dark:text-slate-400">{t('tokens.hint')}</p>
      {made ? <ShownOnce made={made} onDone={() => setMade(null)} /> : null}
      {tokens.error ? (
        <ErrorView error={tokens.error} />
      ) : tokens.data ? (
        <>
          <TokenList
            tokens={tokens.data.tokens}
            caption={t('tokens.yours')}
            none={t('tokens.none')}
          />
          <RevokedList revoked={tokens.data.revoked} />
        </>
      ) : (
        <Spinner />
      )}
      <CreateForm onMade={setMade} />
      {auth?.kind === 'session' && auth.role === 'administrator' ? <OthersTokens /> : null}
    </div>
  );
}
