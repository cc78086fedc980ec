-- The answer buffer: a markdown scratch buffer per tab where a run streams
-- its text, its tool calls (folded) and how it ended.
local config = require('agent_lsp.config')

local M = {}

local ns = vim.api.nvim_create_namespace('agent_lsp')
M.ns = ns

-- folds[bufnr][lnum] = foldexpr value for tool blocks.
local folds = {}

--- Defines the highlight groups (default links, so colorschemes win).
function M.highlights()
  for name, link in pairs({
    AgentLspPrompt = 'Title',
    AgentLspTool = 'Special',
    AgentLspToolError = 'ErrorMsg',
    AgentLspToolResult = 'Comment',
    AgentLspReasoning = 'Comment',
    AgentLspWarning = 'WarningMsg',
    AgentLspFooter = 'NonText',
  }) do
    vim.cmd(('highlight default link %s %s'):format(name, link))
  end
end

function _G.agent_lsp_foldexpr(lnum)
  local f = folds[vim.api.nvim_get_current_buf()]
  return f and f[lnum] or '0'
end

--- Returns (creating it if needed) the answer buffer of state.
function M.buffer(state)
  if state.bufnr and vim.api.nvim_buf_is_valid(state.bufnr) then
    return state.bufnr
  end
  local b = vim.api.nvim_create_buf(false, true)
  vim.bo[b].buftype = 'nofile'
  vim.bo[b].bufhidden = 'hide'
  vim.bo[b].swapfile = false
  vim.bo[b].filetype = 'markdown'
  pcall(vim.api.nvim_buf_set_name, b, ('agent-lsp://answer/%d'):format(state.tab))
  vim.api.nvim_buf_set_var(b, 'agent_lsp_answer', true)
  vim.api.nvim_buf_set_keymap(b, 'n', 'q', '<Cmd>close<CR>', { noremap = true, silent = true, desc = 'Close the answer window' })
  vim.api.nvim_buf_set_keymap(b, 'n', '<C-c>', '<Cmd>AgentCancel<CR>', { noremap = true, silent = true, desc = 'Cancel the agent run' })
  folds[b] = {}
  state.bufnr = b
  state.empty = true
  return b
end

local function set_win_options(win)
  local ui = config.get().ui
  vim.wo[win].wrap = true
  vim.wo[win].linebreak = true
  vim.wo[win].number = false
  vim.wo[win].foldmethod = 'expr'
  vim.wo[win].foldexpr = 'v:lua.agent_lsp_foldexpr(v:lnum)'
  vim.wo[win].foldenable = ui.fold_tools
  vim.wo[win].foldlevel = 0
end

--- The window showing state's buffer in the current tab, or nil.
function M.window(state)
  if not state.bufnr then
    return nil
  end
  for _, w in ipairs(vim.api.nvim_tabpage_list_wins(0)) do
    if vim.api.nvim_win_get_buf(w) == state.bufnr then
      return w
    end
  end
end

--- Shows the answer buffer in the current tab (split or float).
function M.show(state, focus)
  local b = M.buffer(state)
  local win = M.window(state)
  local ui = config.get().ui
  if focus == nil then
    focus = ui.focus
  end
  if focus == nil then
    -- A float over the code is for reading: focus it; a split stays aside.
    focus = ui.layout == 'float'
  end
  if not win then
    local prev = vim.api.nvim_get_current_win()
    if ui.layout == 'float' then
      local cols, rows = vim.o.columns, vim.o.lines
      local w = math.max(20, math.floor(cols * ui.float.width))
      local h = math.max(5, math.floor((rows - 2) * ui.float.height))
      local o = {
        relative = 'editor', width = w, height = h,
        row = math.floor((rows - 2 - h) / 2), col = math.floor((cols - w) / 2),
        style = 'minimal', border = ui.float.border,
      }
      if vim.fn.has('nvim-0.9') == 1 and o.border ~= 'none' then
        o.title, o.title_pos = ' agent-lsp ', 'center'
      end
      -- (0.7/0.8 have no float titles; the buffer name says what it is.)
      win = vim.api.nvim_open_win(b, focus, o)
    else
      local cmd = ui.layout == 'vsplit' and ('botright %dvsplit'):format(ui.size)
        or ('botright %dsplit'):format(ui.size)
      vim.cmd(cmd)
      win = vim.api.nvim_get_current_win()
      vim.api.nvim_win_set_buf(win, b)
      if not focus then
        vim.api.nvim_set_current_win(prev)
      end
    end
    set_win_options(win)
  elseif focus then
    vim.api.nvim_set_current_win(win)
  end
  return win
end

local function line_count(b)
  return vim.api.nvim_buf_line_count(b)
end

-- Appends whole lines; returns the first new line's 1-based number.
local function append_lines(state, lines, hl)
  local b = M.buffer(state)
  local first
  if state.empty then
    vim.api.nvim_buf_set_lines(b, 0, -1, false, lines)
    state.empty = false
    first = 1
  else
    first = line_count(b) + 1
    vim.api.nvim_buf_set_lines(b, -1, -1, false, lines)
  end
  if hl then
    for i = 0, #lines - 1 do
      vim.api.nvim_buf_add_highlight(b, ns, hl, first - 1 + i, 0, -1)
    end
  end
  state.midline = false
  return first
end

-- Keeps the end of the answer in view: always in a window the user is not
-- in, and in the focused one while its cursor is on the last lines (so
-- reading further up is not disturbed); force for the footer.
local function follow(state, force)
  local win = M.window(state)
  if not win then
    return
  end
  local n = line_count(state.bufnr)
  if vim.api.nvim_get_current_win() ~= win or force or vim.api.nvim_win_get_cursor(win)[1] >= (state.seen or n) - 2 then
    pcall(vim.api.nvim_win_set_cursor, win, { n, 0 })
  end
  state.seen = n
end

--- Streams a text delta at the end of the buffer.
function M.text(state, s, hl)
  if not s or s == '' then
    return
  end
  local b = M.buffer(state)
  local parts = vim.split(s, '\n', { plain = true })
  if not state.midline then
    -- A blank line after a tool block, then a fresh line for the text.
    append_lines(state, { '', '' })
  end
  local last = line_count(b) - 1
  local cur = vim.api.nvim_buf_get_lines(b, last, last + 1, false)[1] or ''
  vim.api.nvim_buf_set_text(b, last, #cur, last, #cur, parts)
  if hl then
    for i = 0, #parts - 1 do
      vim.api.nvim_buf_add_highlight(b, ns, hl, last + i, 0, -1)
    end
  end
  state.midline = true
  state.answer = (state.answer or '') .. s
  follow(state)
end

--- Starts a run's section with its prompt.
function M.prompt(state, text)
  M.buffer(state)
  local lines = {}
  if not state.empty then
    table.insert(lines, '')
  end
  table.insert(lines, '## ' .. (vim.split(text, '\n', { plain = true })[1]))
  table.insert(lines, '')
  local first = append_lines(state, lines)
  vim.api.nvim_buf_add_highlight(state.bufnr, ns, 'AgentLspPrompt', first - 1 + (#lines == 3 and 1 or 0), 0, -1)
  state.answer = ''
  -- The text streams onto the empty line after the header.
  state.midline = true
  follow(state)
end

local function summary(name, args)
  local ok, a = pcall(vim.json.decode, args or '')
  if ok and type(a) == 'table' then
    local s = a.command or a.path or a.pattern or a.query
    if type(s) == 'string' then
      return (s:gsub('\n', ' '))
    end
  end
  return (tostring(args or ''):gsub('\n', ' ')):sub(1, 80)
end
M.summary = summary

--- A tool call started: one header line (the fold's first line).
function M.tool_start(state, ev)
  local line = ('▸ %s: %s'):format(ev.name or '?', summary(ev.name, ev.arguments))
  local lnum = append_lines(state, { line }, 'AgentLspTool')
  state.tools = state.tools or {}
  state.tools[ev.id or ev.name or ''] = lnum
  folds[state.bufnr][lnum] = '>1'
  follow(state)
end

-- What a terminal would show of raw command output, as plain lines:
-- colour and cursor escapes dropped, a carriage return (a progress bar)
-- keeping what came after it.
local function plain_lines(text)
  text = text:gsub('\27%[[%d;?]*[%a@]', ''):gsub('\27%][^\7]*\7', '')
  local out = {}
  for _, l in ipairs(vim.split(text, '\n', { plain = true })) do
    l = l:gsub('\r+$', ''):match('[^\r]*$'):gsub('[%z\1-\8\11-\31\127]', '')
    table.insert(out, l)
  end
  if out[#out] == '' then
    table.remove(out)
  end
  return out
end
M.plain_lines = plain_lines

--- A running command's output so far (tool_output events): its last
--- ui.live_lines lines as virtual lines under the tool's header, so they
--- move nothing in the buffer and vanish when the result arrives.
function M.tool_output(state, ev)
  local n = config.get().ui.live_lines
  local key = ev.id or ev.name or ''
  local lnum = state.tools and state.tools[key]
  if not lnum or n <= 0 or not state.bufnr then
    return
  end
  state.live = state.live or {}
  local l = state.live[key] or { text = '' }
  state.live[key] = l
  -- The tail is all that is shown; keep enough of it for n long lines.
  l.text = (l.text .. tostring(ev.text or '')):sub(-32768)
  local lines = plain_lines(l.text)
  local virt = {}
  for i = math.max(1, #lines - n + 1), #lines do
    table.insert(virt, { { '    ' .. lines[i]:sub(1, 240), 'AgentLspToolResult' } })
  end
  if #virt == 0 then
    return
  end
  l.mark = vim.api.nvim_buf_set_extmark(state.bufnr, ns, lnum - 1, 0, { id = l.mark, virt_lines = virt })
  follow(state)
end

--- The live output lines shown under call id's header (for tests and
--- statuslines): a list of strings, empty when none.
function M.live(state, id)
  local l = state.live and state.live[id]
  if not l or not l.mark or not state.bufnr then
    return {}
  end
  local m = vim.api.nvim_buf_get_extmark_by_id(state.bufnr, ns, l.mark, { details = true })
  local out = {}
  for _, vl in ipairs(m and m[3] and m[3].virt_lines or {}) do
    local t = {}
    for _, chunk in ipairs(vl) do
      table.insert(t, chunk[1])
    end
    table.insert(out, table.concat(t))
  end
  return out
end

--- A tool call ended: mark its header and add its result, folded under it.
function M.tool_result(state, ev)
  local b = M.buffer(state)
  local key = ev.id or ev.name or ''
  local l = state.live and state.live[key]
  if l then
    if l.mark then
      pcall(vim.api.nvim_buf_del_extmark, b, ns, l.mark)
    end
    state.live[key] = nil
  end
  local lnum = state.tools and state.tools[key]
  if not lnum then
    M.tool_start(state, ev)
    lnum = state.tools[key]
  end
  local mark = ev.isError and '✗' or '✓'
  local header = vim.api.nvim_buf_get_lines(b, lnum - 1, lnum, false)[1] or ''
  header = header:gsub('^▸', mark)
  vim.api.nvim_buf_set_lines(b, lnum - 1, lnum, false, { header })
  vim.api.nvim_buf_add_highlight(b, ns, ev.isError and 'AgentLspToolError' or 'AgentLspTool', lnum - 1, 0, -1)
  local max = config.get().ui.max_tool_lines
  local res = vim.split(tostring(ev.result or ''), '\n', { plain = true })
  while #res > 1 and vim.trim(res[#res]) == '' do
    table.remove(res)
  end
  local body = {}
  for i, l in ipairs(res) do
    if i > max then
      table.insert(body, ('    … %d more lines'):format(#res - max))
      break
    end
    table.insert(body, '    ' .. l)
  end
  local first = line_count(b) + 1
  local f = folds[b]
  for i = first, first + #body - 1 do
    f[i] = '1'
  end
  append_lines(state, body, 'AgentLspToolResult')
  follow(state)
end

--- The agent's todo list (the whole list, on each change): one folded
--- header with the counts, one line per item.
function M.todos(state, todos)
  local done, lines = 0, {}
  local marks = { completed = '☑', in_progress = '◐', pending = '☐' }
  for _, t in ipairs(todos or {}) do
    if t.status == 'completed' then
      done = done + 1
    end
    table.insert(lines, ('    %s %s'):format(marks[t.status] or '☐', tostring(t.content)))
  end
  local lnum = append_lines(state, { ('☰ todos: %d/%d done'):format(done, #lines) }, 'AgentLspTool')
  local f = folds[state.bufnr]
  f[lnum] = '>1'
  for i = lnum + 1, lnum + #lines do
    f[i] = '1'
  end
  append_lines(state, lines, 'AgentLspToolResult')
  follow(state)
end

--- A warning from the server.
function M.warning(state, text)
  append_lines(state, { '> ⚠ ' .. tostring(text) }, 'AgentLspWarning')
end

--- The run ended: a footer naming the reason, the counts and how full
--- the context window is (ctx, the run's last `context` event).
function M.finish(state, ev, ctx)
  local u = ev.usage or {}
  local gauge = require('agent_lsp.session').gauge({ context = ctx })
  local line = ('_%s · %d turns · %d tool calls%s · %d→%d tokens_'):format(
    tostring(ev.reason), ev.turns or 0, ev.toolCalls or 0, gauge ~= '' and (' · ' .. gauge) or '',
    u.inputTokens or 0, u.outputTokens or 0)
  local lines = { '', line }
  if ev.error and ev.error ~= '' then
    table.insert(lines, 2, '> ' .. ev.error)
  end
  append_lines(state, lines, 'AgentLspFooter')
  follow(state, true)
end

--- A permission prompt is pending: a card in the answer buffer.
function M.approval(state, p)
  local lines = { ('> ⏸ waiting for your approval: %s `%s`'):format(tostring(p.action or p.tool), tostring(p.subject or '')) }
  for _, r in ipairs(p.reasons or {}) do
    table.insert(lines, '>   ' .. tostring(r))
  end
  local first = append_lines(state, lines, 'AgentLspWarning')
  -- Inside the tool call's fold, opened while it waits.
  local header = state.tools and state.tools[p.callId or '']
  if header then
    for i = first, first + #lines - 1 do
      folds[state.bufnr][i] = '1'
    end
  end
  follow(state, true)
  local win = M.window(state)
  if win and header then
    vim.api.nvim_win_call(win, function()
      pcall(vim.cmd, 'normal! zx' .. header .. 'Gzv')
    end)
  end
end

local said = { deny = 'denied', allow = 'allowed once', allow_session = 'allowed for this session', allow_server = 'allowed this server for this session' }

--- The user's answer to a permission prompt.
function M.approved(state, p, choice)
  local first = append_lines(state, { ('> %s: `%s`'):format(said[choice] or tostring(choice), tostring(p.subject or '')) }, 'AgentLspWarning')
  local header = state.tools and state.tools[p.callId or '']
  if header then
    folds[state.bufnr][first] = '1'
    local win = M.window(state)
    if win then
      vim.api.nvim_win_call(win, function()
        pcall(vim.cmd, header .. 'foldclose')
      end)
    end
  end
  follow(state)
end

--- Separates a new session from the previous one in the same buffer.
function M.separator(state)
  if state.bufnr and not state.empty then
    append_lines(state, { '', '---', '' }, 'AgentLspFooter')
  end
end

--- The answer buffer's lines.
function M.lines(state)
  if not state.bufnr then
    return {}
  end
  return vim.api.nvim_buf_get_lines(state.bufnr, 0, -1, false)
end

return M
