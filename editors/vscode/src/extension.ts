// The extension's entry points: activate and deactivate only.
import * as vscode from 'vscode';
import { Session } from './session';

let session: Session | undefined;

export async function activate(ctx: vscode.ExtensionContext): Promise<void> {
  session = new Session(ctx);
  ctx.subscriptions.push(session);
  await session.start();
}

export async function deactivate(): Promise<void> {
  await session?.stop();
  session = undefined;
}
