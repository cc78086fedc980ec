// startup.ts decides when the chat view restores the previous chat and
// loads the model list: once the view is drawn and a server runs, which
// may be long after activation (the binary was not found until a setting
// arrived or was fixed, Retry, Restart server). Pure, so it is unit tested
// without VS Code; chat_view.ts does the requests.

/** What the restore did: done (restored, or nothing to restore), or retry with the next client (this one went away). */
export type RestoreOutcome = 'done' | 'retry';

export interface StartupTasks<C> {
  /**
   * restore brings back the previous chat through client. current() turns
   * false once the user started, chose or cleared a chat in the meantime:
   * the restored chat must not replace it then.
   */
  restore(client: C, current: () => boolean): Promise<RestoreOutcome>;
  /** loadModels lists the models through client, for the picker. */
  loadModels(client: C): Promise<void>;
}

/**
 * Startup restores the chat exactly once, with the first client that runs
 * while the view is drawn, and loads the models once per client. Nothing
 * is marked done without a client, so a server that starts late still
 * brings the chat back; after settle() (the user's own chat) it never does.
 */
export class Startup<C extends object> {
  private viewReady = false;
  private restoreState: 'todo' | 'doing' | 'done' = 'todo';
  private epoch = 0;
  private modelsFor?: C;
  private latest?: C;

  constructor(private readonly tasks: StartupTasks<C>) {}

  /** ready: the view is drawn; client is the running client, if one could be had. */
  ready(client?: C): Promise<void> {
    this.viewReady = true;
    return client ? this.run(client) : Promise.resolve();
  }

  /** started: a client has started (the first start, a restart, a retry). */
  started(client: C): Promise<void> {
    this.latest = client;
    return this.viewReady ? this.run(client) : Promise.resolve();
  }

  /** reloadModels: the endpoint's settings changed without a restart (pushed to client): list the models again. */
  reloadModels(client: C): Promise<void> {
    this.modelsFor = undefined;
    return this.started(client);
  }

  /** settle: the user started, chose or cleared a chat; nothing is restored over it. */
  settle(): void {
    this.restoreState = 'done';
    this.epoch++;
  }

  /** restorePending: the previous chat may still be restored. */
  get restorePending(): boolean {
    return this.restoreState !== 'done';
  }

  private async run(client: C): Promise<void> {
    this.latest ??= client;
    const jobs: Promise<void>[] = [];
    if (this.modelsFor !== client) {
      this.modelsFor = client;
      jobs.push(this.tasks.loadModels(client).catch(() => {
        // A client that fails to list them may list them after a restart.
        if (this.modelsFor === client) this.modelsFor = undefined;
      }));
    }
    if (this.restoreState === 'todo') {
      this.restoreState = 'doing';
      const epoch = this.epoch;
      jobs.push(this.tasks.restore(client, () => this.epoch === epoch).catch(() => 'retry' as const).then((o) => {
        if (this.restoreState !== 'doing') return; // settled meanwhile
        this.restoreState = o === 'retry' ? 'todo' : 'done';
        // The client went away while a newer one had started: try that one.
        if (o === 'retry' && this.latest && this.latest !== client) return this.run(this.latest);
      }));
    }
    await Promise.all(jobs);
  }
}
