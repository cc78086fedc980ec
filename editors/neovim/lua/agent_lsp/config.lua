-- Defaults, merging, validation and root detection for agent_lsp.
local M = {}

--- The LSP client's name (and the vim.lsp.enable name).
M.NAME = 'agent_lsp'

M.defaults = {
  -- The server command; `agent-lsp serve` speaks LSP over stdio.
  cmd = { 'agent-lsp', 'serve' },
  -- Extra environment for the server process (e.g. AGENT_LSP_API_KEY).
  cmd_env = nil,
  -- The workspace root is the nearest directory holding one of these,
  -- else the current directory.
  root_markers = { '.git', 'go.mod', 'package.json', 'Cargo.toml', 'pyproject.toml', '.hg', '.jj' },
  -- Attach to buffers of these filetypes only (nil: every file buffer).
  filetypes = nil,
  -- Never attach to these filetypes.
  exclude_filetypes = { 'gitcommit', 'gitrebase', 'help' },
  -- Attach automatically when a file is opened.
  auto_attach = true,
  -- Sent as initializationOptions: baseUrl, model, apiKey, maxTurns,
  -- maxToolCalls, approvalTimeout, rewriteInstruction, actionMaxTurns,
  -- actionAnyFile (see docs/protocol.md). Empty: the server's config files
  -- and AGENT_LSP_* environment decide.
  settings = {},
  -- 'confirm': the server marks every agent edit as needing confirmation
  -- (sent as settings.review; docs/protocol.md, Review). It takes effect
  -- only in clients that show annotated edits, which Neovim does not:
  -- here review the agent's changes after the fact with :AgentChanges,
  -- :AgentDiff and :AgentUndo. 'off' (default): edits apply at once.
  review = 'off',
  -- Forward vim.diagnostic changes to the agent (agent/diagnostics).
  forward_diagnostics = true,
  -- Answer the server's agent/saveDocuments with :write.
  save_request = true,
  ui = {
    -- 'split' (below), 'vsplit' (right) or 'float'.
    layout = 'split',
    -- Rows for 'split', columns for 'vsplit'.
    size = 15,
    -- Fractions of the editor for 'float'.
    float = { width = 0.8, height = 0.8, border = 'rounded' },
    -- Move the cursor into the answer window when it opens (nil: for the
    -- float, not for splits).
    focus = nil,
    -- Fold tool calls (open one with zo).
    fold_tools = true,
    -- Lines of a tool result shown in the answer buffer.
    max_tool_lines = 30,
    -- Lines of a running command's output shown live under its tool row
    -- (the last ones; the result replaces them). 0 hides it.
    live_lines = 8,
    -- Show reasoning text (in a quote block).
    show_reasoning = false,
  },
  -- Called with every agent/event's params (after the UI handled it).
  on_event = nil,
  -- Map `keys` (true), or not (false, the default).
  keymaps = false,
  -- folke-style key specs { lhs, rhs, mode = 'n'|{...}, desc = ... }. A
  -- spec given in setup() replaces the default with the same lhs and mode;
  -- { lhs, false } removes it.
  keys = {
    { '<leader>aa', '<Cmd>AgentAsk<CR>', desc = 'Agent: ask (multi-line prompt)' },
    { '<leader>aa', ':AgentAsk<CR>', mode = 'x', desc = 'Agent: ask about the selection' },
    { '<leader>ae', ':AgentEdit<CR>', mode = 'x', desc = 'Agent: edit the selection' },
    { '<leader>ae', '<Cmd>AgentEdit<CR>', desc = 'Agent: edit the current line' },
    { '<leader>as', '<Cmd>AgentSessions<CR>', desc = 'Agent: sessions' },
    { '<leader>am', '<Cmd>AgentModel<CR>', desc = 'Agent: model' },
    { '<leader>al', '<Cmd>AgentLog<CR>', desc = 'Agent: answer window' },
    { '<leader>an', '<Cmd>AgentNew<CR>', desc = 'Agent: new session' },
    { '<leader>ac', '<Cmd>AgentCancel<CR>', desc = 'Agent: cancel the run' },
  },
}

local function key_id(k)
  local mode = k.mode or 'n'
  if type(mode) == 'table' then
    mode = table.concat(mode, ',')
  end
  return mode .. ' ' .. tostring(k[1])
end

--- The default keys with the user's specs laid over them.
function M.merge_keys(base, over)
  local out, at = {}, {}
  for _, k in ipairs(base or {}) do
    table.insert(out, vim.deepcopy(k))
    at[key_id(k)] = #out
  end
  for _, k in ipairs(over or {}) do
    local i = at[key_id(k)]
    if i then
      out[i] = vim.deepcopy(k)
    else
      table.insert(out, vim.deepcopy(k))
      at[key_id(k)] = #out
    end
  end
  local kept = {}
  for _, k in ipairs(out) do
    if k[2] then
      table.insert(kept, k)
    end
  end
  return kept
end

local function is_list(t)
  if type(t) ~= 'table' then
    return false
  end
  if next(t) == nil then
    return true
  end
  local n = 0
  for _ in pairs(t) do
    n = n + 1
  end
  for i = 1, n do
    if t[i] == nil then
      return false
    end
  end
  return true
end
M.is_list = is_list

--- Deep-merges maps; lists and scalars from `over` replace those of `base`
--- (so root_markers = { '.git' } means only .git, unlike tbl_deep_extend).
function M.merge(base, over)
  if over == nil then
    return vim.deepcopy(base)
  end
  if type(base) ~= 'table' or type(over) ~= 'table' or is_list(over) and next(over) ~= nil or is_list(base) and next(base) ~= nil then
    return vim.deepcopy(over)
  end
  local out = vim.deepcopy(base)
  for k, v in pairs(over) do
    if type(v) == 'table' and type(out[k]) == 'table' then
      out[k] = M.merge(out[k], v)
    else
      out[k] = vim.deepcopy(v)
    end
  end
  return out
end

local function check(problems, path, value, kind, optional)
  if value == nil then
    if not optional then
      table.insert(problems, path .. ': missing')
    end
    return
  end
  if kind == 'list' then
    if not is_list(value) then
      table.insert(problems, path .. ': expected a list, got ' .. type(value))
      return
    end
    for i, x in ipairs(value) do
      if type(x) ~= 'string' then
        table.insert(problems, ('%s[%d]: expected a string, got %s'):format(path, i, type(x)))
      end
    end
  elseif type(value) ~= kind then
    table.insert(problems, ('%s: expected %s, got %s'):format(path, kind, type(value)))
  end
end

--- Returns the problems of a merged configuration (empty when valid).
function M.validate(c)
  local p = {}
  check(p, 'cmd', c.cmd, 'list')
  if is_list(c.cmd) and #c.cmd == 0 then
    table.insert(p, 'cmd: empty')
  end
  check(p, 'cmd_env', c.cmd_env, 'table', true)
  check(p, 'root_markers', c.root_markers, 'list')
  check(p, 'filetypes', c.filetypes, 'list', true)
  check(p, 'exclude_filetypes', c.exclude_filetypes, 'list', true)
  check(p, 'auto_attach', c.auto_attach, 'boolean')
  check(p, 'settings', c.settings, 'table')
  check(p, 'forward_diagnostics', c.forward_diagnostics, 'boolean')
  if c.review ~= 'off' and c.review ~= 'confirm' then
    table.insert(p, ('review: %q is not off or confirm'):format(tostring(c.review)))
  end
  check(p, 'save_request', c.save_request, 'boolean')
  check(p, 'on_event', c.on_event, 'function', true)
  check(p, 'keymaps', c.keymaps, 'boolean')
  check(p, 'keys', c.keys, 'table')
  check(p, 'ui', c.ui, 'table')
  if type(c.ui) == 'table' then
    local layouts = { split = true, vsplit = true, float = true }
    if not layouts[c.ui.layout] then
      table.insert(p, ('ui.layout: %q is not split, vsplit or float'):format(tostring(c.ui.layout)))
    end
    check(p, 'ui.size', c.ui.size, 'number')
    check(p, 'ui.float', c.ui.float, 'table')
    check(p, 'ui.focus', c.ui.focus, 'boolean', true)
    check(p, 'ui.fold_tools', c.ui.fold_tools, 'boolean')
    check(p, 'ui.max_tool_lines', c.ui.max_tool_lines, 'number')
    check(p, 'ui.live_lines', c.ui.live_lines, 'number')
    check(p, 'ui.show_reasoning', c.ui.show_reasoning, 'boolean')
  end
  if type(c.settings) == 'table' then
    local known = {
      baseUrl = 'string', model = 'string', apiKey = 'string', maxTurns = 'number',
      maxToolCalls = 'number', approvalTimeout = 'string', rewriteInstruction = 'string',
      actionMaxTurns = 'number', actionAnyFile = 'boolean', review = 'string',
    }
    for k, v in pairs(c.settings) do
      if not known[k] then
        table.insert(p, ('settings.%s: unknown key (known: baseUrl, model, apiKey, maxTurns, maxToolCalls, approvalTimeout, rewriteInstruction, actionMaxTurns, actionAnyFile, review)'):format(tostring(k)))
      elseif type(v) ~= known[k] then
        table.insert(p, ('settings.%s: expected %s, got %s'):format(k, known[k], type(v)))
      end
    end
  end
  return p
end

M.options = vim.deepcopy(M.defaults)

--- Merges opts over the defaults, stores the result and returns it with
--- its problems.
function M.set(opts)
  local c = M.merge(M.defaults, opts or {})
  if opts and type(opts.keys) == 'table' then
    c.keys = M.merge_keys(M.defaults.keys, opts.keys)
  end
  local problems = M.validate(c)
  M.options = c
  return c, problems
end

function M.get()
  return M.options
end

local uv = vim.loop

local function exists(path)
  return uv.fs_stat(path) ~= nil
end

--- Returns the nearest directory at or above `path` (a file or directory)
--- holding one of `markers`, or nil.
function M.find_root(path, markers)
  if not path or path == '' then
    return nil
  end
  path = vim.fn.fnamemodify(path, ':p')
  local dir = path
  local st = uv.fs_stat(path)
  if not st or st.type ~= 'directory' then
    dir = vim.fn.fnamemodify(path, ':h')
  end
  dir = dir:gsub('/+$', '')
  if dir == '' then
    dir = '/'
  end
  while true do
    for _, m in ipairs(markers) do
      if exists(dir .. (dir == '/' and '' or '/') .. m) then
        return dir
      end
    end
    local parent = vim.fn.fnamemodify(dir, ':h')
    if parent == dir then
      return nil
    end
    dir = parent
  end
end

--- The workspace root for a buffer: from the root markers, else the
--- current directory.
function M.root_for(bufnr, markers)
  local name = vim.api.nvim_buf_get_name(bufnr)
  return M.find_root(name, markers or M.options.root_markers) or vim.loop.cwd()
end

return M
