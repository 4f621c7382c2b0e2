import type { ReactNode } from 'react';
import { ScrollX } from '../../components/scroll-x.tsx';

/** A settings list as a small table: its caption, one header per column, then the rows given. */
export function SettingsTable({
  caption,
  headers,
  headerClasses = [],
  children,
  after,
}: {
  caption: string;
  /** The columns' headers, in order; they never change while the table is shown. */
  headers: readonly ReactNode[];
  /** Classes of the headers, by column: a column left out on phones (PRIORITY), say. */
  headerClasses?: readonly (string | undefined)[];
  children: ReactNode;
  /** What belongs with the list inside its box, such as the dialog that confirms a row's action. */
  after?: ReactNode;
}) {
  return (
    <ScrollX label={caption}>
      <table className="w-full text-left text-xs">
        <caption className="py-1 text-left font-medium text-slate-600 dark:text-slate-300">
          {caption}
        </caption>
        <thead>
          <tr>
            {headers.map((header, column) => (
              // A fixed list of columns: the position is the header's identity.
              <th key={column} scope="col" className={headerClasses[column]}>
                {header}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>{children}</tbody>
      </table>
      {after}
    </ScrollX>
  );
}
