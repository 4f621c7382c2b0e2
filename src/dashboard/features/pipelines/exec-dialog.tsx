import { useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import type { Pipeline } from '../../../kit/index.ts';
import { Button } from '../../components/button.tsx';
import { AnsweredDialog } from './answered-dialog.tsx';
import { ErrorView } from '../../components/error-view.tsx';
import { ArgField } from './arg-field.tsx';
import { argProblem, argsToSend } from './args.ts';
import { ExecOutcome } from './exec-outcome.tsx';
import { FilePicker } from './file-picker.tsx';
import { useExec } from './queries.ts';
import { useServiceDown } from '../../shared/service-down.ts';

export function ExecDialog({ pipeline, onClose }: { pipeline: Pipeline; onClose: () => void }) {
  const { t } = useTranslation('pipelines');
  const exec = useExec();
  const down = useServiceDown();
  const [file, setFile] = useState('');
  const [args, setArgs] = useState<Record<string, string>>(() =>
    Object.fromEntries(pipeline.args.map((a) => [a.name, a.value])),
  );
  // Problems are shown once the user has tried to run, then kept current as they type.
  const [tried, setTried] = useState(false);
  const fileProblem = file.trim() === '' ? t('exec.problem.file') : undefined;
  const argProblems = Object.fromEntries(
    pipeline.args.flatMap((arg) => {
      const value = args[arg.name] ?? '';
      const problem = argProblem(arg, value);
      if (problem === undefined) return [];
      const shown = value.trim() === '' ? arg.value : value.trim();
      return [
        [arg.name, t(`exec.problem.${problem.kind}`, { ...problem, name: arg.name, value: shown })],
      ];
    }),
  );
  const problems = [...(fileProblem ? [fileProblem] : []), ...Object.values(argProblems)];
  const submit = (event: FormEvent) => {
    event.preventDefault();
    setTried(true);
    if (problems.length > 0 || down) return;
    exec.mutate({ id: pipeline.id, file: file.trim(), args: argsToSend(pipeline.args, args) });
  };
  const result = exec.data;
  return (
    <AnsweredDialog
      title={t('exec.title', { name: pipeline.name })}
      answered={result !== undefined}
      onClose={onClose}
      action={
        <Button
          type="submit"
          form="exec-form"
          variant="primary"
          disabled={exec.isPending}
          disabledReason={down?.reason}
        >
          {exec.isPending ? t('exec.submitting') : t('exec.submit')}
        </Button>
      }
    >
      {result?.requestId !== undefined ? (
        <ExecOutcome requestId={result.requestId} />
      ) : result ? (
        // A vendor's service may accept without naming the request: nothing to follow.
        <p role="status" data-testid="exec-outcome">
          {t('exec.unfollowable', { status: result.status, message: result.message })}
        </p>
      ) : (
        <form id="exec-form" onSubmit={submit} noValidate className="flex flex-col gap-3">
          {tried && problems.length > 0 ? (
            <div
              role="alert"
              className="rounded-md border border-red-300 bg-red-50 px-3 py-2 text-red-900 dark:border-red-800 dark:bg-red-950 dark:text-red-100"
            >
              <p className="font-medium">{t('exec.problems')}</p>
              <ul className="mt-1 list-disc pl-5">
                {problems.map((problem) => (
                  <li key={problem}>{problem}</li>
                ))}
              </ul>
            </div>
          ) : null}
          <FilePicker value={file} onChange={setFile} problem={tried ? fileProblem : undefined} />
          {pipeline.args.length > 0 ? (
            <fieldset className="flex flex-col gap-2">
              <legend className="mb-1 text-sm font-medium text-slate-700 dark:text-slate-200">
                {t('exec.args')}
              </legend>
              {pipeline.args.map((arg) => (
                <ArgField
                  key={arg.name}
                  arg={arg}
                  value={args[arg.name] ?? ''}
                  onChange={(value) => setArgs({ ...args, [arg.name]: value })}
                  problem={tried ? argProblems[arg.name] : undefined}
                />
              ))}
            </fieldset>
          ) : null}
          {exec.error ? <ErrorView error={exec.error} /> : null}
        </form>
      )}
    </AnsweredDialog>
  );
}
