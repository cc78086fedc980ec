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
local handlers = require('agent_lsp.handlers')
local protocol = require('agent_lsp.protocol')
local session = require('agent_lsp.session')
local ui = require('agent_lsp.ui')

local M = {}

--- The client name (also the vim.lsp.enable name).
M.NAME = config.NAME

M.state = session.state
M.status = session.status
M.handlers = handlers.handlers
M.lsp_diagnostics = handlers.lsp_diagnostics
M.forward_diagnostics = handlers.forward_diagnostics
local char_index = handlers.char_index

local function notify(msg, level)
  vim.notify('agent-lsp: ' .. msg, level or vim.log.levels.INFO)
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
    st.id = session.new_id()
  end
  session.register(st)
  local params = { prompt = text, sessionId = st.id }
  if attached then
    params.textDocument = { uri = vim.uri_from_bufnr(bufnr) }
    if opts.line1 then
      params.range = M.make_range(bufnr, opts.line1, opts.line2 or opts.line1, opts.selection, client.offset_encoding or 'utf-16')
    end
  end
  -- #buffer / #file:path mentions, and the model :AgentModel chose.
  local items, missing = require('agent_lsp.context').parse(text, bufnr, client.config.root_dir)
  if #items > 0 then
    params.context = items
  end
  if #missing > 0 then
    notify('no such file: ' .. table.concat(missing, ', '), vim.log.levels.WARN)
  end
  params.model = require('agent_lsp.models').get(client.config.root_dir)
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
        ui.finish(st, st.last_end, st.context)
        st.ended = true
      end
      return
    end
    st.result = result
    st.running = false
    if not st.ended then
      st.ended = true
      st.last_end = result
      ui.finish(st, result, st.context)
    end
    vim.cmd('redrawstatus!')
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
  st.id, st.context = nil, nil
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
  require('agent_lsp.chat_commands')(def, M)
  require('agent_lsp.changes').commands(def) -- :AgentChanges, :AgentDiff, :AgentUndo
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
  for _, st in pairs(session.all()) do
    if st.client_id == client_id and st.running then
      st.running = false
      st.last_end = { reason = 'error', error = 'the server exited' }
      ui.finish(st, st.last_end, st.context)
    end
  end
end

--- The client config (a vim.lsp.Config on 0.11+). root_dir may be nil, in
--- which case root_markers apply (vim.lsp.enable).
function M.lsp_config(root)
  local c = config.get()
  local caps = vim.lsp.protocol.make_client_capabilities()
  caps.experimental = caps.experimental or {}
  caps.experimental.agentLsp = { saveRequest = c.save_request, approve = true }
  local settings = c.settings
  if c.review == 'confirm' then
    settings = vim.tbl_extend('force', settings or {}, { review = 'confirm' })
  end
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
    on_init = function(client)
      require('agent_lsp.reply').hook(client)
      handlers.code_action_fallback(client)
    end,
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
  require('agent_lsp.compose').keymaps()
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
