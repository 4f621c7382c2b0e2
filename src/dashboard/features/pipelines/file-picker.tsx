import { useId } from 'react';
import { useTranslation } from 'react-i18next';
import { Field, Select, TextInput, type ControlProps } from '../../components/fields.tsx';
import { useTimeFormat } from '../../shared/use-time.ts';
import { useInbox } from './queries.ts';

/**
 * The file exec runs on: picked from the inbox's list when the service offers one, and
 * always typed in the text box, which the list fills. The box stays so that a service with
 * no list (a vendor's, behind the gateway) or a file not listed yet can still be named.
 */
export function FilePicker({ value: file, onChange, problem }: ControlProps) {
  const { t } = useTranslation('pipelines');
  const time = useTimeFormat();
  const inbox = useInbox();
  const problemId = useId();
  // A list read earlier is not offered once the service refuses it.
  const files = inbox.isError ? [] : (inbox.data ?? []);
  const listed = files.some((f) => f.name === file);
  const hint = inbox.isPending
    ? t('exec.inboxReading')
    : inbox.isError
      ? t('exec.noInbox')
      : files.length === 0
        ? t('exec.inboxEmpty')
        : t('exec.fileHint');
  return (
    <div className="flex flex-col gap-3">
      {files.length > 0 ? (
        <Field label={t('exec.inboxFile')} hint={t('exec.inboxHint')}>
          <Select
            name="inboxfile"
            value={listed ? file : ''}
            autoFocus
            onChange={(e) => onChange(e.target.value)}
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
          </Select>
        </Field>
      ) : null}
      <div className="flex flex-col gap-1">
        <Field label={t('exec.file')} hint={hint}>
          <TextInput
            name="filename"
            value={file}
            onChange={(e) => onChange(e.target.value)}
            autoFocus={files.length === 0}
            aria-invalid={problem !== undefined}
            aria-describedby={problem === undefined ? undefined : problemId}
          />
        </Field>
        {problem === undefined ? null : (
          <span id={problemId} className="text-xs text-red-700 dark:text-red-300">
            {problem}
          </span>
        )}
      </div>
    </div>
  );
}
