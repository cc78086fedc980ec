-- The client's handlers: agent/event, agent/saveDocuments and
-- window/showMessageRequest, and the agent/diagnostics forwarding.
local config = require('agent_lsp.config')
local compat = require('agent_lsp.compat')
local protocol = require('agent_lsp.protocol')
local session = require('agent_lsp.session')
local reply = require('agent_lsp.reply')
local ui = require('agent_lsp.ui')

local M = {}

local function notify(msg, level)
  vim.notify('agent-lsp: ' .. msg, level or vim.log.levels.INFO)
end

-- What a run_start of a code action or the inline edit is called in the
-- answer buffer.
local origins = { fix = 'Fix with agent', rewrite = 'Rewrite with agent', edit = 'Edit with agent' }

-- The events of a side run (session.side): they go to the tab's answer
-- buffer; its own running/ended state stays on the record.
local function on_side_event(rec, ev)
  local st, t = rec.state, ev.type
  if t == 'run_start' then
    -- The server's title says what the run is ("Fix with agent",
    -- "Edit: <instruction>"); the origin's name stands in without one.
    local title = type(ev.title) == 'string' and ev.title ~= '' and ev.title or origins[ev.origin] or tostring(ev.origin)
    local where = type(ev.context) == 'string' and ev.context ~= '' and (' (' .. ev.context .. ')') or ''
    ui.prompt(st, title .. where)
    vim.cmd('redrawstatus')
  elseif t == 'end' then
    rec.running = false
    ui.finish(st, ev, rec.context)
    session.forget(rec.id)
    vim.cmd('redrawstatus!')
  end
end

local function on_event(_, ev)
  if type(ev) ~= 'table' then
    return
  end
  local rec = session.by_id(ev.sessionId)
  if not rec and ev.type == 'run_start' and ev.origin and ev.origin ~= 'prompt' and ev.sessionId then
    rec = session.side(ev)
  end
  if rec then
    -- st is the state whose answer buffer shows the event; rec holds the
    -- run's own counters (the same table unless it is a side run).
    local st = rec.side and rec.state or rec
    local t = ev.type
    if t == 'text' then
      ui.text(st, ev.text)
    elseif t == 'reasoning' then
      if config.get().ui.show_reasoning then
        ui.text(st, ev.text, 'AgentLspReasoning')
      end
    elseif t == 'tool_start' then
      ui.tool_start(st, ev)
    elseif t == 'tool_output' then
      ui.tool_output(st, ev)
    elseif t == 'tool_result' then
      ui.tool_result(st, ev)
    elseif t == 'warning' then
      ui.warning(st, ev.text)
    elseif t == 'usage' then
      rec.usage = ev.usage
    elseif t == 'context' then
      rec.context = { tokens = ev.tokens, window = ev.window }
      vim.cmd('redrawstatus')
    elseif t == 'todos' then
      rec.todos = ev.todos
      ui.todos(st, ev.todos)
    elseif t == 'compaction' then
      ui.warning(st, ('context compacted (%s → %s tokens)'):format(tostring(ev.tokensBefore), tostring(ev.tokensAfter)))
    elseif rec.side then
      on_side_event(rec, ev)
    elseif t == 'end' then
      st.running = false
      st.ended = true
      st.last_end = ev
      st.waiting = 0
      ui.finish(st, ev, st.context)
      M.report_hidden()
      vim.cmd('redrawstatus!')
      -- For statuslines and user hooks: require('agent_lsp').state().last_end.
      vim.api.nvim_exec_autocmds('User', { pattern = 'AgentLspDone', modeline = false })
    end
  end
  local cb = config.get().on_event
  if cb then
    pcall(cb, ev)
  end
end

-- How long a permission prompt may wait where only vim.wait can (see
-- reply.lua): the server's approvalTimeout (default 5m), after which it
-- denies anyway.
local function approval_wait_ms()
  local t = config.get().settings.approvalTimeout
  local n, unit = tostring(t or ''):match('^(%d+)([smh])$')
  local mult = { s = 1000, m = 60000, h = 3600000 }
  if n then
    return tonumber(n) * mult[unit] + 1000
  end
  return 5 * 60000 + 1000
end

local function client_of(ctx)
  return ctx and ctx.client_id and vim.lsp.get_client_by_id(ctx.client_id)
end

-- window/showMessageRequest through vim.ui.select, so any picker works; the
-- answer is sent when the picker calls back (reply.lua), so an asynchronous
-- picker (telescope, fzf-lua, dressing) neither freezes the editor nor
-- times out. The server lists the safe action first: it is the default.
local function on_message_request(_, params, ctx)
  params = params or {}
  local actions = params.actions or {}
  if #actions == 0 then
    notify(tostring(params.message))
    return vim.NIL
  end
  return reply.ask(client_of(ctx), function(done)
    vim.ui.select(actions, {
      prompt = params.message,
      kind = 'agent_lsp.permission',
      format_item = function(a)
        return a.title
      end,
    }, done)
  end, vim.NIL, approval_wait_ms())
end

-- agent/approve: the richer prompt for our own client, its choices Deny
-- first. The run's answer buffer shows the pending call and the choice;
-- status() says "waiting for your approval" meanwhile.
local function on_approve(_, params, ctx)
  params = params or {}
  local choices = params.choices or {}
  if #choices == 0 then
    choices = { { id = protocol.choices.DENY, title = protocol.actions.DENY } }
  end
  local rec = params.sessionId and session.by_id(params.sessionId)
  -- A side run's card goes to the tab's answer buffer; its wait is counted
  -- apart from the tab's own run.
  local st = rec and (rec.side and rec.state or rec)
  local counter = rec and rec.side and 'side_waiting' or 'waiting'
  if st then
    st[counter] = (st[counter] or 0) + 1
    ui.approval(st, params)
    vim.cmd('redrawstatus')
  end
  return reply.ask(client_of(ctx), function(done)
    vim.ui.select(choices, {
      prompt = params.message or ('agent-lsp: the agent wants to ' .. tostring(params.action) .. ' ' .. tostring(params.subject)),
      kind = 'agent_lsp.approve',
      format_item = function(c)
        return c.title
      end,
    }, function(item)
      local choice = item and item.id or protocol.choices.DENY
      if st then
        st[counter] = math.max(0, (st[counter] or 1) - 1)
        ui.approved(st, params, choice)
        vim.cmd('redrawstatus')
      end
      done({ choice = choice })
    end)
  end, { choice = protocol.choices.DENY }, approval_wait_ms())
end

-- Files the agent's edits touched since the last report (workspace/applyEdit).
local changed = {}

-- workspace/applyEdit: Neovim's own handler, noting the files it touches.
local function on_apply_edit(err, params, ctx, cfg)
  local e = params and params.edit or {}
  for uri in pairs(e.changes or {}) do
    changed[uri] = true
  end
  for _, dc in ipairs(e.documentChanges or {}) do
    local u = dc.textDocument and dc.textDocument.uri or dc.newUri or dc.uri
    if u then
      changed[u] = true
    end
  end
  return vim.lsp.handlers['workspace/applyEdit'](err, params, ctx, cfg)
end

--- Tells the user which of the files the agent changed are shown in no
--- window (they became hidden, maybe unsaved, buffers); returns their names.
function M.report_hidden()
  local hidden = {}
  for uri in pairs(changed) do
    local ok, fname = pcall(vim.uri_to_fname, uri)
    local b = ok and vim.fn.bufnr(fname) or -1
    if b ~= -1 and #vim.fn.win_findbuf(b) == 0 then
      local name = vim.fn.fnamemodify(fname, ':~:.')
      if vim.bo[b].modified then
        name = name .. ' [+]'
      end
      table.insert(hidden, name)
    end
  end
  changed = {}
  table.sort(hidden)
  if #hidden > 0 then
    notify('the agent changed files not shown in a window: ' .. table.concat(hidden, ', ') .. ' (:ls lists them; [+] = not saved yet)')
  end
  return hidden
end

local function buffer_for(fname)
  for _, b in ipairs(vim.api.nvim_list_bufs()) do
    if vim.api.nvim_buf_is_loaded(b) and vim.api.nvim_buf_get_name(b) == fname then
      return b
    end
  end
end

-- agent/saveDocuments: :write the named buffers so a command sees them.
local function on_save_documents(_, params)
  local saved = {}
  for _, uri in ipairs(params and params.uris or {}) do
    local b = buffer_for(vim.uri_to_fname(uri))
    if b then
      local ok = true
      if vim.bo[b].modified then
        ok = pcall(vim.api.nvim_buf_call, b, function()
          vim.cmd('silent keepalt write')
        end)
      end
      if ok then
        table.insert(saved, uri)
      end
    end
  end
  if #saved == 0 then
    return vim.empty_dict()
  end
  return { saved = saved }
end

--- The handlers agent_lsp's client needs.
function M.handlers()
  return {
    [protocol.EVENT] = on_event,
    [protocol.SAVE_DOCUMENTS] = on_save_documents,
    ['window/showMessageRequest'] = on_message_request,
    [protocol.APPROVE] = on_approve,
    ['workspace/applyEdit'] = on_apply_edit,
  }
end

-- Diagnostics --------------------------------------------------------------

function M.char_index(line, col, enc)
  col = math.min(col or 0, #line)
  if enc == 'utf-8' then
    return col
  end
  local ok, a, b
  if compat.has_011 then
    ok, a = pcall(vim.str_utfindex, line, enc, col, false)
    return ok and a or col
  end
  ok, a, b = pcall(vim.str_utfindex, line, col)
  if not ok then
    return col
  end
  return enc == 'utf-32' and a or b
end

--- The buffer's vim.diagnostic entries as LSP diagnostics in `enc`.
function M.lsp_diagnostics(bufnr, enc)
  local out = {}
  local lines = vim.api.nvim_buf_get_lines(bufnr, 0, -1, false)
  for _, d in ipairs(vim.diagnostic.get(bufnr)) do
    local l1, l2 = d.lnum or 0, d.end_lnum or d.lnum or 0
    table.insert(out, {
      range = {
        start = { line = l1, character = M.char_index(lines[l1 + 1] or '', d.col, enc) },
        ['end'] = { line = l2, character = M.char_index(lines[l2 + 1] or '', d.end_col or d.col, enc) },
      },
      severity = d.severity,
      message = d.message,
      source = d.source,
      code = d.code,
    })
  end
  return out
end

local pending = {}

--- Sends the buffer's diagnostics to every agent_lsp client attached to it
--- (debounced).
function M.forward_diagnostics(bufnr)
  if pending[bufnr] then
    return
  end
  pending[bufnr] = true
  vim.defer_fn(function()
    pending[bufnr] = nil
    if not vim.api.nvim_buf_is_valid(bufnr) then
      return
    end
    for _, c in ipairs(compat.clients(config.NAME, bufnr)) do
      compat.notify(c, protocol.DIAGNOSTICS, {
        uri = vim.uri_from_bufnr(bufnr),
        diagnostics = M.lsp_diagnostics(bufnr, c.offset_encoding or 'utf-16'),
      })
    end
  end, 150)
end

-- Fix with agent on 0.11+ ---------------------------------------------------

local function overlaps(d, r)
  return d.range.start.line <= r['end'].line and d.range['end'].line >= r.start.line
end

--- Neovim 0.11+ sends each server only its own diagnostics in a code
--- action's context, so agent-lsp would never offer "Fix with agent" for
--- another server's. When the context is empty, fill it with the
--- diagnostics this plugin forwards (agent/diagnostics: every namespace)
--- on the requested lines. Hooks the client's RPC, where the request is
--- made whatever the Neovim version calls it from.
function M.code_action_fallback(client)
  local rpc = client and client.rpc
  if type(rpc) ~= 'table' or type(rpc.request) ~= 'function' or rpc.agent_lsp_fallback then
    return
  end
  local orig = rpc.request
  rpc.request = function(method, params, ...)
    if method == 'textDocument/codeAction' and type(params) == 'table' and params.context
      and (params.context.diagnostics == nil or #params.context.diagnostics == 0) and params.textDocument then
      local b = vim.uri_to_bufnr(params.textDocument.uri)
      if vim.api.nvim_buf_is_loaded(b) and params.range then
        local out = {}
        for _, d in ipairs(M.lsp_diagnostics(b, client.offset_encoding or 'utf-16')) do
          if overlaps(d, params.range) then
            table.insert(out, d)
          end
        end
        if #out > 0 then
          params = vim.deepcopy(params)
          params.context.diagnostics = out
        end
      end
    end
    return orig(method, params, ...)
  end
  rpc.agent_lsp_fallback = true
end

return M
