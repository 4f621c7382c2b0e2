import { useId, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Field, Select, TextInput } from '../../components/fields.tsx';
import { useTimeFormat } from '../../i18n/use-time.ts';
import { useInbox } from './queries.ts';

// The option that turns the list into a text box; no file name can hold a NUL.
const OTHER = '\u0000other';

/**
 * The file exec runs on: picked from the inbox's list when the service offers one, typed
 * when it does not (a vendor's service behind the gateway) or when the user wants another.
 */
export function FilePicker({
  file,
  onChange,
  problem,
}: {
  file: string;
  onChange: (file: string) => void;
  /** Why the file cannot be run on, shown under the control. */
  problem: string | undefined;
}) {
  const { t } = useTranslation('pipelines');
  const time = useTimeFormat();
  const inbox = useInbox();
  const [typing, setTyping] = useState(false);
  const problemId = useId();
  const invalid = {
    'aria-invalid': problem !== undefined,
    'aria-describedby': problem === undefined ? undefined : problemId,
  };
  const problemText =
    problem === undefined ? null : (
      <span id={problemId} className="text-xs text-red-700 dark:text-red-300">
        {problem}
      </span>
    );
  if (inbox.isPending) {
    return (
      <p role="status" className="text-slate-600 dark:text-slate-300">
        {t('exec.inboxReading')}
      </p>
    );
  }
  const files = inbox.data;
  if (files === undefined || files.length === 0) {
    // No list (refused, or none on this service) or nothing in it: say so quietly, and type.
    return (
      <div className="flex flex-col gap-1" data-testid="file-free-text">
        <Field
          label={t('exec.file')}
          hint={files === undefined ? t('exec.noInbox') : t('exec.inboxEmpty')}
        >
          <TextInput
            name="filename"
            value={file}
            onChange={(e) => onChange(e.target.value)}
            autoFocus
            {...invalid}
          />
        </Field>
        {problemText}
      </div>
    );
  }
  return (
    <div className="flex flex-col gap-2">
      <Field label={t('exec.file')} hint={t('exec.inboxHint')}>
        <Select
          name="inboxfile"
          value={typing ? OTHER : file}
          autoFocus
          onChange={(e) => {
            const chosen = e.target.value;
            setTyping(chosen === OTHER);
            onChange(chosen === OTHER ? '' : chosen);
          }}
          {...(typing ? {} : invalid)}
        >
          <option value="">{t('exec.chooseFile')}</option>
          {files.map((f) => (
            <option key={f.name} value={f.name}>
              {t('exec.fileOption', {
                name: f.name,
                size: f.size,
                modified: time.serviceStamp(f.modified),
              })}
            </option>
          ))}
          <option value={OTHER}>{t('exec.otherFile')}</option>
        </Select>
      </Field>
      {typing ? (
        <Field label={t('exec.otherFileLabel')} hint={t('exec.fileHint')}>
          <TextInput
            name="filename"
            value={file}
            onChange={(e) => onChange(e.target.value)}
            {...invalid}
          />
        </Field>
      ) : null}
      {problemText}
    </div>
  );
}
