// Shell completion scripts for pipelinectl, written from the same tables the parser and
// the usage text use, so that a new command or option completes without a second edit.

/** A command: its one-line help and the words its first argument takes, if a fixed set. */
export interface CommandSpec {
  readonly help: string;
  readonly words?: readonly string[];
}

/** An option as parseArgs takes it, with its help and, for a value, its name or choices. */
export interface OptionSpec {
  readonly type: 'string' | 'boolean';
  readonly multiple?: boolean;
  readonly short?: string;
  readonly help: string;
  readonly value?: string;
  readonly choices?: readonly string[];
}

export const SHELLS = ['bash', 'zsh'] as const;
export type Shell = (typeof SHELLS)[number];

/** Words are ours (command and option names): checked so that quoting is never a question. */
function word(text: string): string {
  if (!/^[\w.-]+$/.test(text)) throw new Error(`not a completion word: ${text}`);
  return text;
}

/**
 * Help text inside a zsh single-quoted spec: a quote closed and reopened around it, and
 * the brackets and colons _arguments and _describe parse escaped.
 */
function zshHelp(text: string): string {
  return text.replace(/[[\]:\\]/g, '\\$&').replace(/'/g, "'\\''");
}

function bash(
  commands: Readonly<Record<string, CommandSpec>>,
  options: Readonly<Record<string, OptionSpec>>,
): string {
  const flags = Object.entries(options).flatMap(([name, o]) => [
    `--${word(name)}`,
    ...(o.short ? [`-${word(o.short)}`] : []),
  ]);
  const valued = Object.entries(options)
    .filter(([, o]) => o.type === 'string')
    .flatMap(([name, o]) => [`--${word(name)}`, ...(o.short ? [`-${word(o.short)}`] : [])]);
  const choiceCases = Object.entries(options)
    .filter(([, o]) => o.choices)
    .map(
      ([name, o]) =>
        `    --${word(name)}) COMPREPLY=($(compgen -W "${(o.choices ?? []).map(word).join(' ')}" -- "$cur")); return ;;`,
    );
  const wordCases = Object.entries(commands)
    .filter(([, c]) => c.words)
    .map(
      ([name, c]) =>
        `      ${word(name)}) COMPREPLY=($(compgen -W "${(c.words ?? []).map(word).join(' ')}" -- "$cur")) ;;`,
    );
  return `# bash completion for pipelinectl. Load it with
#   source <(pipelinectl completion bash)
# or save it as ~/.local/share/bash-completion/completions/pipelinectl
_pipelinectl() {
  local cur="\${COMP_WORDS[COMP_CWORD]}" prev="\${COMP_WORDS[COMP_CWORD-1]}"
  local i word command="" args=0
  case "$prev" in
${choiceCases.join('\n')}
    ${valued.join('|')}) COMPREPLY=(); return ;;
  esac
  if [[ "$cur" == -* ]]; then
    COMPREPLY=($(compgen -W "${flags.join(' ')}" -- "$cur"))
    return
  fi
  # The command is the first word that is neither an option nor an option's value.
  for ((i = 1; i < COMP_CWORD; i++)); do
    word="\${COMP_WORDS[i]}"
    case "$word" in
      ${valued.join('|')}) ((i++)) ;;
      -*) ;;
      *) if [[ -z "$command" ]]; then command="$word"; else ((args++)); fi ;;
    esac
  done
  if [[ -z "$command" ]]; then
    COMPREPLY=($(compgen -W "${Object.keys(commands).map(word).join(' ')}" -- "$cur"))
  elif ((args == 0)); then
    case "$command" in
${wordCases.join('\n')}
      *) COMPREPLY=() ;;
    esac
  else
    COMPREPLY=()
  fi
}
complete -F _pipelinectl pipelinectl
`;
}

function zsh(
  commands: Readonly<Record<string, CommandSpec>>,
  options: Readonly<Record<string, OptionSpec>>,
): string {
  const specs = Object.entries(options).map(([name, o]) => {
    const help = `[${zshHelp(o.help)}]`;
    const value =
      o.type === 'boolean'
        ? ''
        : `:${zshHelp(o.value ?? name)}:${o.choices ? `(${o.choices.map(word).join(' ')})` : ' '}`;
    // -h and --help exclude each other; an option given more than once is marked *.
    if (o.short)
      return `'(-${word(o.short)} --${word(name)})'{-${o.short},--${name}}'${help}${value}'`;
    return `'${o.multiple ? '*' : ''}--${word(name)}${help}${value}'`;
  });
  const described = Object.entries(commands).map(
    ([name, c]) => `    '${word(name)}:${zshHelp(c.help)}'`,
  );
  const firstCases = Object.entries(commands)
    .filter(([, c]) => c.words)
    .map(
      ([name, c]) => `        ${word(name)}) compadd -- ${(c.words ?? []).map(word).join(' ')} ;;`,
    );
  return `#compdef pipelinectl
# zsh completion for pipelinectl. Load it with
#   source <(pipelinectl completion zsh)
# or save it as _pipelinectl in a folder of $fpath
_pipelinectl() {
  local -a commands
  commands=(
${described.join('\n')}
  )
  local state line
  _arguments -s \\
${specs.map((spec) => `    ${spec} \\`).join('\n')}
    '1:command:->command' \\
    '2:argument:->first' \\
    '*:argument: '
  case $state in
    command) _describe -t commands 'pipelinectl command' commands ;;
    first)
      case $line[1] in
${firstCases.join('\n')}
      esac
      ;;
  esac
}
if [[ "\${zsh_eval_context[-1]}" == loadautofunc ]]; then
  _pipelinectl "$@"
else
  compdef _pipelinectl pipelinectl
fi
`;
}

/** The completion script for `shell`, from the command and option tables. */
export function completionScript(
  shell: Shell,
  commands: Readonly<Record<string, CommandSpec>>,
  options: Readonly<Record<string, OptionSpec>>,
): string {
  return shell === 'bash' ? bash(commands, options) : zsh(commands, options);
}
