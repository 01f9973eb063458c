// A bash shell a guide's commands are typed into, one command at a time, as a
// reader types them: variables and functions set by one command are there for
// the next. `curl` is wrapped, invisibly to the commands, to record each HTTP
// answer (status and body) for the expected answers the guide shows.
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';

export interface Answer {
  /** curl's exit code: 0, or why no answer came (7: could not connect). */
  curlExit: number;
  status: number;
  headers: string;
  body: string;
  /** The request's headers, as given with -H. */
  requestHeaders: Record<string, string>;
}

export interface CommandResult {
  exitCode: number;
  stdout: string;
  stderr: string;
  answers: Answer[];
}

const SEP = '\x1e';

// Records every answer to $GUIDE_ANSWERS (one line: curl's exit code, the status, the file holding the
// body); curl's own output and exit code are passed on unchanged. -w is the recorder's: the guides use none.
const CURL_RECORDER = String.raw`
curl() {
  local out rc err
  out=$(mktemp "$GUIDE_TMP/answer.XXXXXX")
  printf '%s\0' "$@" > "$out.args"
  command curl "$@" -w $'%{stderr}\036%{http_code}' > "$out" 2> "$out.err"
  rc=$?
  err=$(<"$out.err")
  cat "$out"
  [ -n "\${err%$'\036'*}" ] && printf '%s\n' "\${err%$'\036'*}" >&2
  printf '%s\t%s\t%s\n' "$rc" "\${err##*$'\036'}" "$out" >> "$GUIDE_ANSWERS"
  return $rc
}
`.replaceAll('\\$', '$');

export class GuideShell {
  private readonly bash: ChildProcessWithoutNullStreams;
  private readonly dir = mkdtempSync(join(tmpdir(), 'guide-shell-'));
  private readonly answersFile = join(this.dir, 'answers');
  private answersRead = 0;
  private stdout = '';
  private stderr = '';
  private exited: string | undefined;

  /** `env` is added to a reader's plain environment (PATH without the project's node_modules/.bin). */
  constructor(cwd: string, env: Record<string, string>) {
    writeFileSync(this.answersFile, '');
    const path = (process.env.PATH ?? '')
      .split(delimiter)
      .filter((entry) => !entry.includes(`node_modules${'/'}.bin`))
      .join(delimiter);
    const plain: Record<string, string> = { PATH: path, HOME: process.env.HOME ?? this.dir, LANG: process.env.LANG ?? 'C.UTF-8', TMPDIR: tmpdir() };
    // A process group of its own, so that closing the shell also ends whatever a command left running.
    this.bash = spawn('bash', ['--noprofile', '--norc'], {
      cwd,
      detached: true,
      env: { ...plain, ...env, GUIDE_TMP: this.dir, GUIDE_ANSWERS: this.answersFile },
    });
    this.bash.stdout.setEncoding('utf8').on('data', (chunk: string) => (this.stdout += chunk));
    this.bash.stderr.setEncoding('utf8').on('data', (chunk: string) => (this.stderr += chunk));
    this.bash.on('exit', (code, signal) => (this.exited = `the shell exited (${signal ?? code})`));
    this.bash.stdin.write(CURL_RECORDER);
  }

  /** Runs one command (stdin closed) and waits for it, at most `timeoutMs`. */
  async run(command: string, timeoutMs: number): Promise<CommandResult> {
    this.stdout = '';
    this.stderr = '';
    this.bash.stdin.write(`{\n${command}\n} </dev/null\nprintf '${SEP}%s${SEP}' "$?"; printf '${SEP}' >&2\n`);
    const deadline = Date.now() + timeoutMs;
    let done: RegExpExecArray | null = null;
    while (!(done = new RegExp(`${SEP}(\\d+)${SEP}$`).exec(this.stdout)) || !this.stderr.endsWith(SEP)) {
      if (this.exited) throw new Error(`${this.exited}; output: ${this.stdout}${this.stderr}`);
      if (Date.now() > deadline) {
        this.close();
        throw new Error(`no end after ${timeoutMs / 1000} s; output so far: ${this.stdout}${this.stderr}`);
      }
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    return {
      exitCode: Number(done[1]),
      stdout: this.stdout.slice(0, done.index),
      stderr: this.stderr.slice(0, -SEP.length),
      answers: this.newAnswers(),
    };
  }

  private newAnswers(): Answer[] {
    const lines = readFileSync(this.answersFile, 'utf8').split('\n').filter(Boolean);
    const fresh = lines.slice(this.answersRead);
    this.answersRead = lines.length;
    return fresh.map((line) => {
      const [exit, status, file] = line.split('\t') as [string, string, string];
      const args = readFileSync(`${file}.args`, 'utf8').split('\0');
      const requestHeaders: Record<string, string> = {};
      args.forEach((arg, i) => {
        const header = arg === '-H' || arg === '--header' ? args[i + 1] : undefined;
        const m = header && /^([^:]+):\s*(.*)$/.exec(header);
        if (m) requestHeaders[m[1]!.toLowerCase()] = m[2]!;
      });
      return { curlExit: Number(exit), status: Number(status), requestHeaders, ...splitHeaders(readFileSync(file, 'utf8')) };
    });
  }

  close(): void {
    try {
      process.kill(-this.bash.pid!, 'SIGKILL');
    } catch {}
    rmSync(this.dir, { recursive: true, force: true });
  }
}

/** `curl -i` writes the headers before the body (each interim answer's too). */
function splitHeaders(output: string): { headers: string; body: string } {
  let headers = '';
  let body = output;
  while (/^HTTP\/[\d.]+ \d{3}/.test(body)) {
    const end = body.search(/\r?\n\r?\n/);
    if (end < 0) return { headers: headers + body, body: '' };
    headers += body.slice(0, end);
    body = body.slice(end).replace(/^\r?\n\r?\n/, '');
  }
  return { headers, body };
}
