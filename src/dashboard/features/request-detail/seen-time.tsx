import { Trans, useTranslation } from 'react-i18next';

/**
 * A time this server (a gateway) saw something at, said to be so wherever it is shown: the
 * service stated no time of its own there (attempt-time.ts). `text` is the instant as the
 * user reads times; the `<time>` keeps it whole whatever the word order.
 */
export function SeenTimeText({ iso, text }: { iso: string; text: string }) {
  const { t } = useTranslation('requestDetail');
  return (
    <span data-testid="attempt-seen">
      <Trans
        t={t}
        i18nKey="attempts.seenAt"
        values={{ time: text }}
        components={{ time: <time dateTime={iso} className="whitespace-nowrap" /> }}
      />
    </span>
  );
}
