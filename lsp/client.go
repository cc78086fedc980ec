package lsp

import (
	"context"
	"fmt"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"

	"github.com/agent-lsp/agent-lsp/tools"
)

// client is the editor end of the connection: the calls and notifications
// the server sends. The workspace, the approver, progress and the log
// handler hold a client, not the Server, so what they depend on is this
// and nothing else.
type client struct {
	conn jsonrpc2.Conn   // set by Serve before the first message is read
	ctx  context.Context // the connection's lifetime, for notifications
}

// applyEdit asks the editor to apply p; a refusal is tools.ErrConflict.
func (c *client) applyEdit(ctx context.Context, p *protocol.ApplyWorkspaceEditParams) error {
	var res protocol.ApplyWorkspaceEditResult
	if _, err := c.conn.Call(ctx, protocol.MethodWorkspaceApplyEdit, p, &res); err != nil {
		return err
	}
	if !res.Applied {
		if res.FailureReason != nil && *res.FailureReason != "" {
			return fmt.Errorf("%w (the editor said: %s)", tools.ErrConflict, *res.FailureReason)
		}
		return errNotApplied
	}
	return nil
}

// errNotApplied is an applyEdit answered applied: false without a reason:
// a conflict, or, for an edit the user reviews, the user declined it.
var errNotApplied error = &sentinel{"the editor did not apply the edit: " + tools.ErrConflict.Error(), tools.ErrConflict}

// saveDocuments asks a client that declared experimental.agentLsp.saveRequest
// to save the documents (agent/saveDocuments).
func (c *client) saveDocuments(ctx context.Context, uris []string) error {
	var res SaveDocumentsResult
	if _, err := c.conn.Call(ctx, MethodSaveDocuments, SaveDocumentsParams{URIs: uris}, &res); err != nil {
		return fmt.Errorf("save documents: %w", err)
	}
	return nil
}

// notify sends a notification for the life of the connection; a closed
// connection drops it.
func (c *client) notify(method string, params any) {
	if c.conn == nil {
		return
	}
	_ = c.conn.Notify(c.ctx, method, params)
}

// cancel tells the editor that the server gave up on its request id.
func (c *client) cancel(id jsonrpc2.ID) {
	_ = c.conn.Notify(context.Background(), protocol.MethodCancelRequest, map[string]any{"id": idValue(id)})
}
