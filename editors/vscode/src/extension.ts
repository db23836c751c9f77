// The Futhark extension: starts futhark-lsp, shows its state in the status bar, opens the
// IR and CUDA views as read-only virtual documents, and shows what running a `-- >>> expr`
// example gave.

import * as path from 'path';
import * as vscode from 'vscode';
import {
  LanguageClient,
  LanguageClientOptions,
  ServerOptions,
  State,
} from 'vscode-languageclient/node';

/** The URI scheme of the read-only IR and CUDA views. */
const VIEW_SCHEME = 'futhark-view';

/** The answer of `futhark/showIR` and `futhark/showCuda`. */
interface ViewResult {
  uri: string;
  /** `futhark-ir` or `cuda`. */
  language: string;
  /** False when `text` explains why nothing can be shown. */
  available: boolean;
  text: string;
  /** The definition shown; null for the whole program. */
  definition: string | null;
  /** The IR stage shown; null for CUDA. */
  stage: string | null;
}

/** The command of the "▶ Run" code lens over `-- >>> expr` comments (run by the server). */
const RUN_COMMAND = 'futhark.runExample';

/** The answer of `futhark.runExample`. */
interface RunResult {
  expr: string;
  /** `value`, `error` or `timeout`. */
  status: string;
  value: string | null;
  type: string | null;
  /** The comment's expected output, and whether the value matches it. */
  expected: string | null;
  matches: boolean | null;
  /** One line: the value and type, or the error. */
  headline: string;
  /** Everything: trace lines, then the value or the rendered error. */
  message: string;
}

function isRunResult(x: unknown): x is RunResult {
  return typeof x === 'object' && x !== null && typeof (x as RunResult).headline === 'string';
}

/** The IR stages `futhark/showIR` accepts, as offered in the quick pick. */
const STAGES: vscode.QuickPickItem[] = [
  { label: 'soacs', description: 'as lowered: first-order, monomorphic SOAC IR' },
  { label: 'fused', description: 'after simplification, inlining and fusion' },
  { label: 'kernels', description: 'after kernel extraction: host code and kernel programs' },
];

/** The editor language of a view: CUDA as `cuda-cpp`, the IR with Futhark highlighting. */
function viewLanguage(language: string): string {
  switch (language) {
    case 'cuda':
      return 'cuda-cpp';
    case 'futhark-ir':
      return 'futhark';
    default:
      return 'plaintext';
  }
}

/** Holds the text of each open view; documents of this scheme are read-only. */
class ViewProvider implements vscode.TextDocumentContentProvider {
  private readonly texts = new Map<string, string>();
  private readonly changed = new vscode.EventEmitter<vscode.Uri>();
  readonly onDidChange = this.changed.event;

  set(uri: vscode.Uri, text: string): void {
    this.texts.set(uri.toString(), text);
    this.changed.fire(uri);
  }

  provideTextDocumentContent(uri: vscode.Uri): string {
    return this.texts.get(uri.toString()) ?? '';
  }
}

let client: LanguageClient | undefined;
let status: vscode.StatusBarItem;
let runOutput: vscode.OutputChannel | undefined;
const views = new ViewProvider();

/** Shows a run's result: all of it in the output channel, one line as a notification. */
function showRun(result: unknown): void {
  if (!isRunResult(result)) {
    return;
  }
  runOutput ??= vscode.window.createOutputChannel('Futhark Examples');
  runOutput.appendLine(result.message);
  runOutput.appendLine('');
  const line = `${result.expr} ⇒ ${result.headline}`;
  const more = 'Show Output';
  const shown =
    result.status === 'value' && result.matches !== false
      ? vscode.window.showInformationMessage(line, more)
      : vscode.window.showWarningMessage(line, more);
  void shown.then((picked) => {
    if (picked === more) {
      runOutput?.show(true);
    }
  });
}

export async function activate(context: vscode.ExtensionContext): Promise<void> {
  status = vscode.window.createStatusBarItem(vscode.StatusBarAlignment.Left, 0);
  status.command = 'futhark.restartServer';
  context.subscriptions.push(status, { dispose: () => runOutput?.dispose() });
  context.subscriptions.push(
    vscode.workspace.registerTextDocumentContentProvider(VIEW_SCHEME, views),
    vscode.commands.registerCommand('futhark.showIR', showIR),
    vscode.commands.registerCommand('futhark.showCuda', () => showView('futhark/showCuda', 'cu')),
    vscode.commands.registerCommand('futhark.restartServer', restart),
    vscode.workspace.onDidChangeConfiguration((e) => {
      if (e.affectsConfiguration('futhark.server') || e.affectsConfiguration('futhark.run')) {
        void restart();
      }
    }),
  );
  await start(context);
}

export async function deactivate(): Promise<void> {
  await client?.stop();
}

let extensionContext: vscode.ExtensionContext | undefined;

async function start(context: vscode.ExtensionContext): Promise<void> {
  extensionContext = context;
  const config = vscode.workspace.getConfiguration('futhark');
  const command = config.get<string>('server.path', 'futhark-lsp') || 'futhark-lsp';
  const args = config.get<string[]>('server.extraArgs', []);
  const serverOptions: ServerOptions = {
    run: { command, args },
    debug: { command, args },
  };
  const clientOptions: LanguageClientOptions = {
    // Files and unsaved buffers only: the views (highlighted as Futhark) are not sources.
    documentSelector: [
      { scheme: 'file', language: 'futhark' },
      { scheme: 'untitled', language: 'futhark' },
    ],
    synchronize: {
      fileEvents: vscode.workspace.createFileSystemWatcher('**/*.fut'),
    },
    // The extension shows run results itself (below), so the server need not.
    initializationOptions: {
      runTimeoutMs: Math.round(1000 * config.get<number>('run.timeoutSeconds', 10)),
      runShowMessage: false,
    },
    middleware: {
      // The client registers the server's commands; this wraps the lens's command so that
      // its result (the value, or the error) is shown rather than dropped.
      executeCommand: async (command, args, next) => {
        const result = await next(command, args);
        if (command === RUN_COMMAND) {
          showRun(result);
        }
        return result;
      },
    },
  };
  client = new LanguageClient('futhark', 'Futhark Language Server', serverOptions, clientOptions);
  client.onDidChangeState((e) => showState(e.newState, command));
  showState(State.Starting, command);
  status.show();
  try {
    await client.start();
  } catch (err) {
    showState(State.Stopped, command);
    void vscode.window.showErrorMessage(
      `Futhark: could not start the language server \`${command}\` (${String(err)}). ` +
        'Set `futhark.server.path` to the futhark-lsp binary.',
    );
  }
}

async function restart(): Promise<void> {
  if (client) {
    try {
      await client.stop();
    } catch {
      // Stopping a server that never started is fine.
    }
    client = undefined;
  }
  if (extensionContext) {
    await start(extensionContext);
  }
}

function showState(state: State, command: string): void {
  switch (state) {
    case State.Starting:
      status.text = '$(sync~spin) Futhark';
      status.tooltip = `Starting ${command}…`;
      break;
    case State.Running:
      status.text = '$(check) Futhark';
      status.tooltip = `${command} is running. Click to restart.`;
      break;
    case State.Stopped:
      status.text = '$(error) Futhark';
      status.tooltip = `${command} is not running. Click to restart.`;
      break;
  }
}

/** The stage last picked, offered first next time. */
let lastStage = 'soacs';

async function showIR(): Promise<void> {
  const items = [...STAGES].sort((a, b) => Number(b.label === lastStage) - Number(a.label === lastStage));
  const picked = await vscode.window.showQuickPick(items, {
    title: 'Futhark: Show IR',
    placeHolder: 'The compiler stage to show',
  });
  if (!picked) {
    return;
  }
  lastStage = picked.label;
  await showView('futhark/showIR', 'ir', picked.label);
}

async function showView(method: string, extension: string, stage?: string): Promise<void> {
  const editor = vscode.window.activeTextEditor;
  if (!editor || editor.document.languageId !== 'futhark' || editor.document.uri.scheme === VIEW_SCHEME) {
    void vscode.window.showWarningMessage('Futhark: open a .fut file first.');
    return;
  }
  if (!client || client.state !== State.Running) {
    void vscode.window.showWarningMessage('Futhark: the language server is not running.');
    return;
  }
  const source = editor.document.uri;
  const cursor = editor.selection.active;
  let result: ViewResult;
  try {
    result = await client.sendRequest<ViewResult>(method, {
      textDocument: { uri: source.toString() },
      position: { line: cursor.line, character: cursor.character },
      ...(stage ? { stage } : {}),
    });
  } catch (err) {
    void vscode.window.showErrorMessage(`Futhark: ${method} failed: ${String(err)}`);
    return;
  }
  if (!result.available) {
    void vscode.window.showInformationMessage(`Futhark: ${result.text.split('\n')[0]}`);
  }
  const name = path.basename(source.path, '.fut');
  const parts = [name, result.definition, result.stage].filter((p): p is string => !!p);
  const uri = vscode.Uri.from({
    scheme: VIEW_SCHEME,
    path: `/${parts.join('.')}.${extension}`,
    query: source.toString(),
  });
  views.set(uri, result.text);
  const doc = await vscode.workspace.openTextDocument(uri);
  const language = viewLanguage(result.language);
  const languages = await vscode.languages.getLanguages();
  const shown = languages.includes(language)
    ? await vscode.languages.setTextDocumentLanguage(doc, language)
    : doc;
  await vscode.window.showTextDocument(shown, { viewColumn: vscode.ViewColumn.Beside, preview: false });
}
