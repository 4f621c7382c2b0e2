import { useState, type FormEvent } from 'react';
import { Link } from 'react-router';
import type { Pipeline } from '../../../kit/index.ts';
import { Button } from '../../components/button.tsx';
import { Dialog } from '../../components/dialog.tsx';
import { ErrorView } from '../../components/error-view.tsx';
import { Field, TextInput } from '../../components/fields.tsx';
import { paths } from '../../paths.ts';
import { useExec } from './queries.ts';
import { strings } from './strings.ts';

export function ExecDialog({ pipeline, onClose }: { pipeline: Pipeline; onClose: () => void }) {
  const exec = useExec();
  const [file, setFile] = useState('');
  const [args, setArgs] = useState<Record<string, string>>(() =>
    Object.fromEntries(pipeline.args.map((a) => [a.name, a.value])),
  );
  const submit = (event: FormEvent) => {
    event.preventDefault();
    exec.mutate({ id: pipeline.id, file: file.trim(), args });
  };
  const started = exec.data?.requestId;
  return (
    <Dialog
      open
      title={strings.exec.title(pipeline.name)}
      onClose={onClose}
      footer={
        started ? (
          <Button onClick={onClose}>{strings.exec.close}</Button>
        ) : (
          <>
            <Button onClick={onClose}>{strings.cancel}</Button>
            <Button
              type="submit"
              form="exec-form"
              variant="primary"
              disabled={exec.isPending || file.trim() === ''}
            >
              {exec.isPending ? strings.exec.submitting : strings.exec.submit}
            </Button>
          </>
        )
      }
    >
      {started ? (
        <p role="status" className="text-sm">
          {strings.exec.started}{' '}
          <Link
            to={paths.request(started)}
            className="font-mono font-medium text-teal-700 underline dark:text-teal-400"
          >
            {started}
          </Link>
        </p>
      ) : (
        <form id="exec-form" onSubmit={submit} className="flex flex-col gap-3">
          <Field label={strings.exec.file} hint={strings.exec.fileHint}>
            <TextInput
              name="filename"
              required
              value={file}
              onChange={(e) => setFile(e.target.value)}
              autoFocus
            />
          </Field>
          {pipeline.args.length > 0 ? (
            <fieldset className="flex flex-col gap-2">
              <legend className="mb-1 text-sm font-medium text-slate-700 dark:text-slate-200">
                {strings.exec.args}
              </legend>
              {pipeline.args.map((arg) => (
                <Field key={arg.name} label={arg.name} hint={`default: ${arg.value}`}>
                  <TextInput
                    name={`arg-${arg.name}`}
                    value={args[arg.name] ?? ''}
                    onChange={(e) => setArgs({ ...args, [arg.name]: e.target.value })}
                  />
                </Field>
              ))}
            </fieldset>
          ) : null}
          {exec.error ? <ErrorView error={exec.error} /> : null}
        </form>
      )}
    </Dialog>
  );
}
