import { HttpError, NetworkError, PipelineKitError, TimeoutError } from '../../kit/index.ts';

/** The parts of an error worth showing: the service's Code and Message when it sent them. */
export function describeError(error: unknown): {
  title: string;
  code?: number | undefined;
  message: string;
} {
  if (error instanceof HttpError) {
    return {
      title: `HTTP ${error.status}`,
      code: error.code,
      message: error.serviceMessage ?? error.message,
    };
  }
  if (error instanceof NetworkError)
    return {
      title: 'Service unreachable',
      message: 'The pipeline service did not answer. Is it running?',
    };
  if (error instanceof TimeoutError) return { title: 'No answer in time', message: error.message };
  if (error instanceof PipelineKitError || error instanceof Error)
    return { title: 'Error', message: error.message };
  return { title: 'Error', message: String(error) };
}

export function ErrorView({ error, onRetry }: { error: unknown; onRetry?: () => void }) {
  const { title, code, message } = describeError(error);
  return (
    <div
      role="alert"
      className="rounded-md border border-red-300 bg-red-50 px-4 py-3 text-sm text-red-900 dark:border-red-800 dark:bg-red-950 dark:text-red-100"
    >
      <p className="font-semibold">
        {title}
        {code !== undefined ? <span className="ml-2 font-mono">Code {code}</span> : null}
      </p>
      <p className="mt-1">{message}</p>
      {onRetry ? (
        <button type="button" onClick={onRetry} className="mt-2 text-sm font-medium underline">
          Try again
        </button>
      ) : null}
    </div>
  );
}
