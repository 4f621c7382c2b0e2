import {
  ErrorCode,
  elementOf,
  elementsOf,
  leafText,
  type TreeObject,
  type TreeValue,
} from '../../kit/index.ts';
import { ApiError } from '../errors.ts';
import type { Document, Tree } from '../render/document.ts';

// Reading an upstream's XML tree, and what our contract's section 10 adds for a service
// behind the gateway: the inbox list, an Arg's rules, the rows per stage. Each is passed on
// only when the upstream states it (our own services do; a vendor service does not).

/** An Arg as the upstream lists it, with the rules it declares (our own services do). */
export function argItem(a: TreeObject): Tree {
  const choices = a.Choice === undefined ? undefined : elementsText(a.Choice);
  return {
    Name: leafText(a.Name),
    Value: leafText(a.Value),
    ...(a.Type !== undefined ? { Type: leafText(a.Type) } : {}),
    ...(a.Required !== undefined ? { Required: leafText(a.Required) === 'true' } : {}),
    ...(a.Pattern !== undefined ? { Pattern: leafText(a.Pattern) } : {}),
    ...(choices !== undefined ? { Choice: choices } : {}),
  };
}

export function elementsText(value: TreeValue): string[] {
  return (Array.isArray(value) ? value : [value]).map(leafText);
}

export function rowCount(name: string, value: TreeValue | undefined): Tree {
  const digits = leafText(value);
  return /^\d{1,15}$/.test(digits) ? { [name]: Number(digits) } : {};
}

/** What the inbox list asks of an upstream: Upstream (upstream.ts) is one. */
interface InboxSource {
  readonly name: string;
  call(operation: 'inbox', fields: Readonly<Record<string, never>>): Promise<TreeObject>;
}

// Only a service that has an inbox list answers one: one without the extension (a vendor
// service) is said to have none, never given a list made up from its requests' files.
export const upstreamInbox = async (upstream: InboxSource): Promise<Document> => {
  let tree: TreeObject;
  try {
    tree = await upstream.call('inbox', {});
  } catch (error) {
    // The call has no parameters to be wrong: a refusal, as a 404 or inside a 200's
    // envelope (vendor services word "unknown API" either way), is a service without it.
    if (error instanceof ApiError && (error.httpStatus === 404 || error.httpStatus === 400)) {
      throw new ApiError(
        404,
        ErrorCode.UnknownApi,
        `Service ${upstream.name} has no inbox list (its pipeline API does not answer inbox); give the file name as it is in its inbox.`,
      );
    }
    throw error;
  }
  return {
    root: 'Inbox',
    body: {
      File: elementsOf(elementOf(tree.Inbox).File).map((f) => {
        const size = leafText(f.Size);
        if (!/^\d{1,15}$/.test(size)) {
          throw new ApiError(
            502,
            ErrorCode.UpstreamFailed,
            `Service ${upstream.name} answered an inbox file size that is not a number of bytes.`,
          );
        }
        return { Name: leafText(f.Name), Size: Number(size), Modified: leafText(f.Modified) };
      }),
    },
  };
};
