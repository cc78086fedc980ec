-- Review and undo of the agent's changes (the server's change journal,
-- docs/protocol.md):
--   :AgentChanges       the tab session's changed files and hunks in the quickfix list
--   :AgentDiff [N] [path]  a file's content before and after turn N (default:
--                       the newest turn that changed it) in a diff split
--   :AgentUndo [N|all]  take back the last N turns not yet undone (default 1)
-- Undo edits arrive as workspace/applyEdit, so open buffers change in place
-- (and `u` takes the undo back); parts of a file the user edited since are
-- left alone and reported.
local compat = require('agent_lsp.compat')
local config = require('agent_lsp.config')
local protocol = require('agent_lsp.protocol')
local session = require('agent_lsp.session')

local M = {}

local function notify(msg, level)
  vim.notify('agent-lsp: ' .. msg, level or vim.log.levels.INFO)
end

-- The tab's session and a client to ask, or nil after telling the user why.
local function target()
  local st = session.state()
  if not st.id then
    notify('no agent session in this tab yet (:AgentPrompt starts one)', vim.log.levels.WARN)
    return nil
  end
  local c = st.client_id and vim.lsp.get_client_by_id(st.client_id) or compat.clients(config.NAME)[1]
  if not c then
    notify('the server is not running', vim.log.levels.ERROR)
    return nil
  end
  return st, c
end

local function request(c, method, params, on_result)
  compat.request(c, method, params, function(err, result)
    if err then
      notify(method .. ': ' .. tostring(err.message or err), vim.log.levels.ERROR)
      return
    end
    on_result(result)
  end)
end

--- The hunks of a unified diff: { {line, text} } with `line` the hunk's
--- first changed line in the file after the change (where its context
--- ends) and `text` that line as the diff shows it ("-old" or "+new").
function M.hunks(diff)
  local out, cur, at = {}, nil, 0
  for line in (diff or ''):gmatch('[^\n]*') do
    local c = line:match('^@@ %-%d+[,%d]* %+(%d+)[,%d]* @@')
    if c then
      at = tonumber(c)
      cur = { line = math.max(at, 1), text = nil }
      table.insert(out, cur)
    elseif cur and not cur.text then
      local k = line:sub(1, 1)
      if k == '+' or k == '-' then
        cur.line, cur.text = math.max(at, 1), line
      elseif k == ' ' then
        at = at + 1
      end
    end
  end
  return out
end

local function fname(f)
  return vim.uri_to_fname(f.uri)
end

--- Quickfix items for an agent/changes result: one per hunk, one per file
--- without a textual diff (binary, not kept, created empty).
function M.qf_items(res)
  local items = {}
  for _, t in ipairs(res.turns or {}) do
    local mark = t.undone and ' [undone]' or ''
    for _, f in ipairs(t.files or {}) do
      local head = ('turn %d%s %s +%d -%d (%s)'):format(t.turn, mark, f.kind, f.added, f.removed, f.tool)
      if f.kind == 'renamed' and f.fromUri then
        head = head .. ' from ' .. vim.fn.fnamemodify(vim.uri_to_fname(f.fromUri), ':t')
      end
      local hs = M.hunks(f.diff)
      if #hs == 0 then
        local why = f.binary and 'binary' or f.notKept or ''
        table.insert(items, { filename = fname(f), lnum = 1, col = 1, text = head .. (why ~= '' and ': ' .. why or '') })
      end
      for _, h in ipairs(hs) do
        table.insert(items, { filename = fname(f), lnum = f.kind == 'deleted' and 1 or h.line, col = 1, text = head .. ': ' .. (h.text or '') })
      end
    end
    for _, c in ipairs(t.conflicts or {}) do
      table.insert(items, { filename = vim.uri_to_fname(c.uri), lnum = 1, col = 1, type = 'W', text = ('turn %d: %s'):format(t.turn, c.reason) })
    end
    for _, s in ipairs(t.ignored or {}) do
      table.insert(items, { text = ('turn %d: %s'):format(t.turn, s) })
    end
  end
  return items
end

--- :AgentChanges: the session's changed files and hunks in the quickfix list.
function M.changes(done)
  local st, c = target()
  if not st then
    return
  end
  request(c, protocol.CHANGES, { sessionId = st.id }, function(res)
    local items = M.qf_items(res)
    vim.fn.setqflist({}, ' ', { title = 'agent-lsp changes: ' .. st.id, items = items })
    if #items == 0 then
      notify('no file changed in this session yet')
    else
      vim.cmd('botright copen')
    end
    if done then
      done(res)
    end
  end)
end

-- The filetype for a scratch side of path: 0.8+ returns it; 0.7's
-- vim.filetype.match sets it on the buffer (the current one) instead.
local function filetype(path, b)
  local ok, ft = pcall(vim.filetype.match, { filename = path })
  if ok and type(ft) == 'string' then
    return ft
  end
  ok, ft = pcall(vim.api.nvim_buf_call, b, function()
    vim.filetype.match(path, b)
    return vim.bo[b].filetype
  end)
  return ok and ft ~= '' and ft or nil
end

local function scratch(name, path, text)
  for _, old in ipairs(vim.api.nvim_list_bufs()) do
    if vim.api.nvim_buf_get_name(old) == name then
      vim.api.nvim_buf_delete(old, { force = true })
    end
  end
  local b = vim.api.nvim_get_current_buf()
  local lines = vim.split(text or '', '\n', { plain = true })
  if lines[#lines] == '' then
    table.remove(lines)
  end
  vim.api.nvim_buf_set_lines(b, 0, -1, false, lines)
  vim.api.nvim_buf_set_name(b, name)
  for k, v in pairs({ buftype = 'nofile', bufhidden = 'wipe', swapfile = false, modifiable = false }) do
    vim.bo[b][k] = v
  end
  local ft = filetype(path, b)
  if ft then
    vim.bo[b].filetype = ft
  end
  vim.cmd('diffthis')
  vim.keymap.set('n', 'q', '<cmd>diffoff! | close<cr>', { buffer = b, desc = 'Close the agent-lsp diff' })
  return b
end

--- :AgentDiff [N] [path]: before and after of a file in a diff split (two
--- scratch buffers; q closes one). path defaults to the current buffer's
--- file, N to the newest turn that changed it.
function M.diff(args, done)
  local turn, path = nil, nil
  for _, a in ipairs(args or {}) do
    if not turn and a:match('^%d+$') then
      turn = tonumber(a)
    else
      path = a
    end
  end
  local want = vim.fn.fnamemodify(path or vim.api.nvim_buf_get_name(0), ':p')
  local st, c = target()
  if not st then
    return
  end
  request(c, protocol.CHANGES, { sessionId = st.id, contents = true }, function(res)
    local found, ft
    for _, t in ipairs(res.turns or {}) do
      if not turn or t.turn == turn then
        for _, f in ipairs(t.files or {}) do
          if f.path == path or fname(f) == want or (f.fromUri and vim.uri_to_fname(f.fromUri) == want) then
            found, ft = f, t
          end
        end
      end
    end
    if not found then
      notify(('%s was not changed by %s'):format(path or vim.fn.fnamemodify(want, ':.'), turn and ('turn ' .. turn) or 'this session'), vim.log.levels.WARN)
      return
    end
    if found.binary or found.notKept then
      notify(('no diff of %s: %s'):format(found.path, found.binary and 'a binary file' or found.notKept), vim.log.levels.WARN)
      return
    end
    local base = ('agent-lsp://turn-%d/'):format(ft.turn)
    vim.cmd('botright new')
    local after = scratch(base .. 'after/' .. found.path, found.path, found.after)
    vim.cmd('leftabove vnew')
    local before = scratch(base .. 'before/' .. found.path, found.path, found.before)
    if done then
      done(before, after)
    end
  end)
end

--- The turns param of :AgentUndo's argument: nil (the last turn), a number or 'all'.
function M.undo_arg(a)
  a = vim.trim(a or '')
  if a == '' then
    return true, nil
  end
  if a == 'all' then
    return true, 'all'
  end
  local n = tonumber(a)
  if n and n >= 1 and n == math.floor(n) then
    return true, n
  end
  return false, ('%q: give a number of turns (1 or more) or all'):format(a)
end

-- path relative to root (the workspace), when inside it.
local function rel(path, root)
  for _, r in ipairs(root and { root, vim.loop.fs_realpath(root) or root } or {}) do
    if path:sub(1, #r + 1) == r .. '/' then
      return path:sub(#r + 2)
    end
  end
  return vim.fn.fnamemodify(path, ':~:.')
end

--- What an agent/undo result says, and how loud (WARN when a conflict was
--- left); paths relative to root.
function M.report(r, root)
  if not r.turns or #r.turns == 0 then
    return 'nothing left to undo in this session', vim.log.levels.INFO
  end
  local nums = {}
  for _, n in ipairs(r.turns) do
    table.insert(nums, tostring(n))
  end
  local msg = ('undid turn%s %s: %d file%s reverted'):format(#nums > 1 and 's' or '', table.concat(nums, ', '),
    #r.reverted, #r.reverted == 1 and '' or 's')
  if not r.conflicts or #r.conflicts == 0 then
    return msg, vim.log.levels.INFO
  end
  local left = {}
  for _, cf in ipairs(r.conflicts) do
    table.insert(left, rel(vim.uri_to_fname(cf.uri), root) .. ': ' .. cf.reason)
  end
  return msg .. '; left as you edited them: ' .. table.concat(left, '; '), vim.log.levels.WARN
end

--- :AgentUndo [N|all]
function M.undo(arg, done)
  local ok, turns = M.undo_arg(arg)
  if not ok then
    notify(':AgentUndo ' .. turns, vim.log.levels.ERROR)
    return
  end
  local st, c = target()
  if not st then
    return
  end
  if st.running then
    notify('a run is going on in this tab; :AgentCancel stops it', vim.log.levels.WARN)
    return
  end
  request(c, protocol.UNDO, { sessionId = st.id, turns = turns }, function(r)
    notify(M.report(r, c.config.root_dir))
    if done then
      done(r)
    end
  end)
end

--- Defines the commands with def(name, fn, opts) (init.lua's, buffer-local or global).
function M.commands(def)
  def('AgentChanges', function()
    M.changes()
  end, { nargs = 0, desc = "The agent's changes in this tab's session (quickfix)" })
  def('AgentDiff', function(a)
    M.diff(a.fargs)
  end, { nargs = '*', complete = 'file', desc = 'Before/after of a file the agent changed: [turn] [path]' })
  def('AgentUndo', function(a)
    M.undo(a.args)
  end, { nargs = '?', desc = "Take back the agent's last turn(s): [N|all]" })
end

return M
