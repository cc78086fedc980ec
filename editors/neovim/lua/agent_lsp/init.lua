-- agent_lsp: the agent-lsp language server in Neovim (0.7 to 0.12).
--
--   require('agent_lsp').setup({ cmd = { 'agent-lsp', 'serve' } })
--
-- attaches the server to file buffers (root from root markers, else the
-- current directory); :AgentPrompt asks the agent with the buffer (and the
-- visual range) as context, the answer streams into a markdown scratch
-- buffer, and :AgentCancel stops the run.
local config = require('agent_lsp.config')
local compat = require('agent_lsp.compat')
local protocol = require('agent_lsp.protocol')
local ui = require('agent_lsp.ui')

local M = {}

--- The client name (also the vim.lsp.enable name).
M.NAME = 'agent_lsp'

local tabs = {} -- tabpage handle -> session state
local by_id = {} -- sessionId -> session state
local counter = 0

local function notify(msg, level)
  vim.notify('agent-lsp: ' .. msg, level or vim.log.levels.INFO)
end

local function new_session_id()
  counter = counter + 1
  return ('nvim-%d-%d-%d'):format(vim.fn.getpid(), os.time(), counter)
end

--- The session state of the current tab: { id, running, bufnr, ... }.
function M.state(tab)
  tab = tab or vim.api.nvim_get_current_tabpage()
  local st = tabs[tab]
  if not st then
    st = { tab = tab, runs = 0 }
    tabs[tab] = st
  end
  return st
end

--- One line for a statusline: "agent: running" and the like.
function M.status()
  local st = tabs[vim.api.nvim_get_current_tabpage()]
  if not st then
    return ''
  end
  if st.running then
    return 'agent: running'
  end
  if st.last_end then
    return 'agent: ' .. tostring(st.last_end.reason)
  end
  return ''
end

-- Handlers ---------------------------------------------------------------

local function on_event(_, ev)
  if type(ev) ~= 'table' then
    return
  end
  local st = by_id[ev.sessionId]
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
    elseif t == 'compaction' then
      ui.warning(st, ('context compacted (%s → %s tokens)'):format(tostring(ev.tokensBefore), tostring(ev.tokensAfter)))
    elseif t == 'end' then
      st.running = false
      st.ended = true
      st.last_end = ev
      ui.finish(st, ev)
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

local function char_index(line, col, enc)
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
        start = { line = l1, character = char_index(lines[l1 + 1] or '', d.col, enc) },
        ['end'] = { line = l2, character = char_index(lines[l2 + 1] or '', d.end_col or d.col, enc) },
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
    for _, c in ipairs(compat.clients(M.NAME, bufnr)) do
      compat.notify(c, protocol.DIAGNOSTICS, {
        uri = vim.uri_from_bufnr(bufnr),
        diagnostics = M.lsp_diagnostics(bufnr, c.offset_encoding or 'utf-16'),
      })
    end
  end, 150)
end

-- Prompts ----------------------------------------------------------------

local function client_for(bufnr, st)
  local c = compat.clients(M.NAME, bufnr)[1]
  if c then
    return c, true
  end
  if st.client_id then
    c = vim.lsp.get_client_by_id(st.client_id)
    if c then
      return c, false
    end
  end
  c = compat.clients(M.NAME)[1]
  return c, false
end

--- The LSP range of lines l1..l2 (1-based), or of the charwise selection
--- when `sel` = { {row, col}, {row, col} } (1-based rows, 0-based byte cols).
function M.make_range(bufnr, l1, l2, sel, enc)
  if sel then
    local a, z = sel[1], sel[2]
    local la = vim.api.nvim_buf_get_lines(bufnr, a[1] - 1, a[1], false)[1] or ''
    local lz = vim.api.nvim_buf_get_lines(bufnr, z[1] - 1, z[1], false)[1] or ''
    -- The end mark is on the last selected character: include it.
    local zc = math.min(#lz, z[2] + 1)
    while zc < #lz and vim.str_utf_start and vim.str_utf_start(lz, zc + 1) ~= 0 do
      zc = zc + 1
    end
    return {
      start = { line = a[1] - 1, character = char_index(la, a[2], enc) },
      ['end'] = { line = z[1] - 1, character = char_index(lz, zc, enc) },
    }
  end
  local last = vim.api.nvim_buf_get_lines(bufnr, l2 - 1, l2, false)[1] or ''
  return {
    start = { line = l1 - 1, character = 0 },
    ['end'] = { line = l2 - 1, character = char_index(last, #last, enc) },
  }
end

--- Asks the agent. opts: { bufnr, line1, line2 (a range), charwise }.
--- Continues the tab's session unless :AgentNew started a fresh one.
function M.prompt(text, opts)
  opts = opts or {}
  if not text or vim.trim(text) == '' then
    vim.ui.input({ prompt = 'Ask agent: ' }, function(input)
      if input and vim.trim(input) ~= '' then
        M.prompt(input, opts)
      end
    end)
    return
  end
  local bufnr = opts.bufnr or vim.api.nvim_get_current_buf()
  local st = M.state()
  if st.running then
    notify('a run is going on in this tab; :AgentCancel stops it', vim.log.levels.WARN)
    return
  end
  local client, attached = client_for(bufnr, st)
  if not client then
    notify('not attached to this buffer (is agent-lsp on PATH? see :checkhealth agent_lsp)', vim.log.levels.ERROR)
    return
  end
  if not st.id then
    st.id = new_session_id()
  end
  by_id[st.id] = st
  local params = { prompt = text, sessionId = st.id }
  if attached then
    params.textDocument = { uri = vim.uri_from_bufnr(bufnr) }
    if opts.line1 then
      params.range = M.make_range(bufnr, opts.line1, opts.line2 or opts.line1, opts.selection, client.offset_encoding or 'utf-16')
    end
  end
  st.running, st.ended, st.client_id, st.tools = true, false, client.id, {}
  st.runs = st.runs + 1
  st.last_end, st.result = nil, nil
  ui.show(st)
  ui.prompt(st, text)
  local run = st.runs
  local ok, req = compat.request(client, protocol.PROMPT, params, function(err, result)
    if st.runs ~= run then
      return
    end
    if err then
      st.running = false
      st.last_end = { reason = 'error', error = err.message }
      if not st.ended then
        ui.finish(st, st.last_end)
        st.ended = true
      end
      return
    end
    st.result = result
    st.running = false
    if not st.ended then
      st.ended = true
      st.last_end = result
      ui.finish(st, result)
    end
  end, bufnr)
  if not ok then
    st.running = false
    notify('the server is not running', vim.log.levels.ERROR)
    return
  end
  st.request_id = req
end

--- Stops the current tab's run (agent/cancel); it ends with reason aborted.
function M.cancel()
  local st = M.state()
  if not st.running or not st.id then
    notify('nothing is running in this tab')
    return
  end
  local c = st.client_id and vim.lsp.get_client_by_id(st.client_id)
  if c then
    compat.notify(c, protocol.CANCEL, { sessionId = st.id })
  end
end

--- Starts a new session in this tab (the next prompt does not continue the
--- last one); with text, asks it right away.
function M.new(text, opts)
  local st = M.state()
  if st.running then
    notify('a run is going on in this tab; :AgentCancel stops it', vim.log.levels.WARN)
    return
  end
  st.id = nil
  ui.separator(st)
  if text and vim.trim(text) ~= '' then
    M.prompt(text, opts)
  end
end

--- Shows (and focuses) the answer buffer of this tab.
function M.log()
  ui.show(M.state(), true)
end

-- Commands ----------------------------------------------------------------

local function prompt_opts(args)
  local o = { bufnr = vim.api.nvim_get_current_buf() }
  if args.range and args.range > 0 then
    o.line1, o.line2 = args.line1, args.line2
    if vim.fn.visualmode() == 'v' then
      local a = vim.api.nvim_buf_get_mark(o.bufnr, '<')
      local z = vim.api.nvim_buf_get_mark(o.bufnr, '>')
      if a[1] == o.line1 and z[1] == o.line2 then
        o.selection = { a, z }
      end
    end
  end
  return o
end

--- Defines :AgentPrompt and friends; buffer-local when bufnr is given.
function M.commands(bufnr)
  local function def(name, fn, o)
    if bufnr then
      vim.api.nvim_buf_create_user_command(bufnr, name, fn, o)
    else
      vim.api.nvim_create_user_command(name, fn, o)
    end
  end
  def('AgentPrompt', function(a)
    M.prompt(a.args, prompt_opts(a))
  end, { nargs = '*', range = true, desc = 'Ask the agent (buffer and range as context)' })
  def('AgentCancel', function()
    M.cancel()
  end, { nargs = 0, desc = "Stop this tab's agent run" })
  def('AgentNew', function(a)
    M.new(a.args, prompt_opts(a))
  end, { nargs = '*', range = true, desc = 'Start a new agent session in this tab' })
  def('AgentLog', function()
    M.log()
  end, { nargs = 0, desc = "Show this tab's agent answer buffer" })
end

--- on_attach: buffer-local commands and the first diagnostics.
function M.on_attach(_, bufnr)
  M.commands(bufnr)
  if config.get().forward_diagnostics then
    local group = vim.api.nvim_create_augroup('agent_lsp_diagnostics', { clear = false })
    vim.api.nvim_clear_autocmds({ group = group, buffer = bufnr })
    vim.api.nvim_create_autocmd('DiagnosticChanged', {
      group = group,
      buffer = bufnr,
      callback = function()
        M.forward_diagnostics(bufnr)
      end,
    })
    M.forward_diagnostics(bufnr)
  end
end

local function on_exit(_, _, client_id)
  for _, st in pairs(tabs) do
    if st.client_id == client_id and st.running then
      st.running = false
      st.last_end = { reason = 'error', error = 'the server exited' }
      ui.finish(st, st.last_end)
    end
  end
end

--- The client config (a vim.lsp.Config on 0.11+). root_dir may be nil, in
--- which case root_markers apply (vim.lsp.enable).
function M.lsp_config(root)
  local c = config.get()
  local caps = vim.lsp.protocol.make_client_capabilities()
  caps.experimental = caps.experimental or {}
  caps.experimental.agentLsp = { saveRequest = c.save_request }
  local settings = c.settings
  if settings and next(settings) == nil then
    settings = nil
  end
  return {
    name = M.NAME,
    cmd = c.cmd,
    cmd_env = c.cmd_env,
    root_dir = root,
    root_markers = c.root_markers,
    filetypes = c.filetypes,
    init_options = settings,
    capabilities = caps,
    handlers = M.handlers(),
    on_attach = M.on_attach,
    on_exit = on_exit,
  }
end

local warned_missing = false

--- Attaches agent_lsp to bufnr when it is a file buffer it should serve.
function M.attach(bufnr)
  bufnr = bufnr or vim.api.nvim_get_current_buf()
  if not vim.api.nvim_buf_is_valid(bufnr) then
    return nil
  end
  local c = config.get()
  if vim.bo[bufnr].buftype ~= '' or vim.api.nvim_buf_get_name(bufnr) == '' then
    return nil
  end
  local ft = vim.bo[bufnr].filetype
  if c.filetypes and not vim.tbl_contains(c.filetypes, ft) then
    return nil
  end
  if c.exclude_filetypes and vim.tbl_contains(c.exclude_filetypes, ft) then
    return nil
  end
  local existing = compat.clients(M.NAME, bufnr)[1]
  if existing then
    return existing.id
  end
  if vim.fn.executable(c.cmd[1]) ~= 1 then
    if not warned_missing then
      warned_missing = true
      notify(('%s is not executable; set cmd in setup() (see :checkhealth agent_lsp)'):format(c.cmd[1]), vim.log.levels.WARN)
    end
    return nil
  end
  local cfg = M.lsp_config(config.root_for(bufnr, c.root_markers))
  cfg.root_markers = nil
  return compat.start(cfg, bufnr)
end

--- Configures agent_lsp. Call once; calling again replaces the options.
function M.setup(opts)
  if vim.fn.has('nvim-0.7') ~= 1 then
    vim.notify('agent-lsp needs Neovim 0.7 or newer', vim.log.levels.ERROR)
    return
  end
  local _, problems = config.set(opts)
  if #problems > 0 then
    notify('invalid setup(): ' .. table.concat(problems, '; '), vim.log.levels.ERROR)
    return
  end
  ui.highlights()
  M.commands()
  local group = vim.api.nvim_create_augroup('agent_lsp', { clear = true })
  vim.api.nvim_create_autocmd('ColorScheme', { group = group, callback = ui.highlights })
  if config.get().auto_attach then
    vim.api.nvim_create_autocmd({ 'BufReadPost', 'BufNewFile', 'FileType' }, {
      group = group,
      callback = function(a)
        M.attach(a.buf)
      end,
    })
    for _, b in ipairs(vim.api.nvim_list_bufs()) do
      if vim.api.nvim_buf_is_loaded(b) then
        M.attach(b)
      end
    end
  end
  M.configured = true
end

--- Stops every agent_lsp client.
function M.stop()
  for _, c in ipairs(compat.clients(M.NAME)) do
    compat.stop(c)
  end
end

return M
