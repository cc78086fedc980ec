-- The client's handlers: agent/event, agent/saveDocuments and
-- window/showMessageRequest, and the agent/diagnostics forwarding.
local config = require('agent_lsp.config')
local compat = require('agent_lsp.compat')
local protocol = require('agent_lsp.protocol')
local session = require('agent_lsp.session')
local ui = require('agent_lsp.ui')

local M = {}

local function notify(msg, level)
  vim.notify('agent-lsp: ' .. msg, level or vim.log.levels.INFO)
end

local function on_event(_, ev)
  if type(ev) ~= 'table' then
    return
  end
  local st = session.by_id(ev.sessionId)
  if st then
    local t = ev.type
    if t == 'text' then
      ui.text(st, ev.text)
    elseif t == 'reasoning' then
      if config.get().ui.show_reasoning then
        ui.text(st, ev.text, 'AgentLspReasoning')
      end
    elseif t == 'tool_start' then
      ui.tool_start(st, ev)
    elseif t == 'tool_result' then
      ui.tool_result(st, ev)
    elseif t == 'warning' then
      ui.warning(st, ev.text)
    elseif t == 'usage' then
      st.usage = ev.usage
    elseif t == 'todos' then
      st.todos = ev.todos
      ui.todos(st, ev.todos)
    elseif t == 'compaction' then
      ui.warning(st, ('context compacted (%s → %s tokens)'):format(tostring(ev.tokensBefore), tostring(ev.tokensAfter)))
    elseif t == 'end' then
      st.running = false
      st.ended = true
      st.last_end = ev
      ui.finish(st, ev)
      -- For statuslines and user hooks: require('agent_lsp').state().last_end.
      vim.api.nvim_exec_autocmds('User', { pattern = 'AgentLspDone', modeline = false })
    end
  end
  local cb = config.get().on_event
  if cb then
    pcall(cb, ev)
  end
end

-- How long a permission prompt may wait before 0.10: the server's
-- approvalTimeout (default 5m), after which it denies anyway.
local function approval_wait_ms()
  local t = config.get().settings.approvalTimeout
  local n, unit = tostring(t or ''):match('^(%d+)([smh])$')
  local mult = { s = 1000, m = 60000, h = 3600000 }
  if n then
    return tonumber(n) * mult[unit] + 1000
  end
  return 5 * 60000 + 1000
end

-- window/showMessageRequest through vim.ui.select, so any picker works.
-- Where Neovim runs server requests in a coroutine (0.10+) the handler
-- yields until the choice; before, it waits with vim.wait, which a
-- synchronous picker (the default inputlist, a test stub) answers at once.
local function on_message_request(_, params)
  params = params or {}
  local actions = params.actions or {}
  if #actions == 0 then
    notify(tostring(params.message))
    return vim.NIL
  end
  local done, choice, waiting = false, nil, false
  local co = coroutine.running()
  local in_co = co ~= nil and not select(2, coroutine.running())
  vim.ui.select(actions, {
    prompt = params.message,
    kind = 'agent_lsp.permission',
    format_item = function(a)
      return a.title
    end,
  }, function(item)
    choice, done = item, true
    if waiting then
      vim.schedule(function()
        coroutine.resume(co)
      end)
    end
  end)
  if not done then
    if in_co then
      waiting = true
      coroutine.yield()
    else
      vim.wait(approval_wait_ms(), function()
        return done
      end, 50)
    end
  end
  return choice or vim.NIL
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

return M
