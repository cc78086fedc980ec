-- Review and undo in headless Neovim (driven by neovim_changes_test.go,
-- against the real binary and a scripted model): :AgentChanges,
-- :AgentDiff, :AgentUndo. Headless-safe like e2e.lua: pcall, a libuv
-- watchdog, :cquit on failure.
local h = dofile(vim.fn.fnamemodify(debug.getinfo(1, 'S').source:sub(2), ':p:h') .. '/helpers.lua')
local out, wait, step, steps = h.out, h.wait, h.step, h.steps
local watchdog = h.watchdog(25000)
local notes = h.capture_notes()
local function exists(p)
  return vim.loop.fs_stat(p) ~= nil
end

-- The next notification whose text holds s (after index from).
local function noted(s, from)
  for i = from or 1, #notes do
    if tostring(notes[i].msg):find(s, 1, true) then
      return notes[i]
    end
  end
end

local ok, err = pcall(function()
  local ws = assert(vim.env.E2E_WS, 'E2E_WS not set')
  local agent = require('agent_lsp')
  local changes = require('agent_lsp.changes')
  agent.setup({ cmd = { assert(vim.env.AGENT_LSP_BIN), 'serve' }, review = 'confirm' })
  -- bash asks: allow it (the picker answers later, like a real one).
  vim.ui.select = function(items, opts, on_choice)
    for _, it in ipairs(items) do
      if (opts.format_item and opts.format_item(it) or it) == 'Allow' then
        return vim.defer_fn(function()
          on_choice(it)
        end, 20)
      end
    end
    on_choice(nil)
  end

  vim.cmd('edit ' .. vim.fn.fnameescape(ws .. '/sub/main.go'))
  local buf = vim.api.nvim_get_current_buf()
  local src = vim.api.nvim_get_current_win()
  wait(10000, function()
    return vim.api.nvim_buf_get_commands(buf, {}).AgentUndo ~= nil
  end, 'attach (buffer-local :AgentUndo)')
  local client = require('agent_lsp.compat').clients(agent.NAME, buf)[1]
  assert(client.config.init_options and client.config.init_options.review == 'confirm',
    'review not passed to the server: ' .. vim.inspect(client.config.init_options))

  local st = agent.state()
  local function run(prompt)
    vim.api.nvim_set_current_win(src)
    vim.cmd('AgentPrompt ' .. prompt)
    wait(20000, function()
      return st.ended and not st.running
    end, 'the end of ' .. prompt)
    assert(st.last_end.reason == 'end_turn', prompt .. ' ended ' .. vim.inspect(st.last_end))
  end
  run('first change')
  run('second change')
  assert(exists(ws .. '/notes.txt') and exists(ws .. '/by-bash.txt') and exists(ws .. '/other.txt'), 'the turns did not create their files')

  -- :AgentChanges: a quickfix entry per hunk and per file without a diff.
  vim.fn.setqflist({}, 'r')
  vim.cmd('AgentChanges')
  wait(5000, function()
    return #vim.fn.getqflist() > 0
  end, 'the quickfix list')
  local qf = vim.fn.getqflist({ title = 1, items = 1 })
  assert(qf.title:find('agent-lsp changes', 1, true), 'title: ' .. qf.title)
  local got = {}
  for _, it in ipairs(qf.items) do
    local name = it.bufnr > 0 and vim.fn.fnamemodify(vim.api.nvim_buf_get_name(it.bufnr), ':t') or ''
    got[#got + 1] = ('%s:%d:%s'):format(name, it.lnum, it.text)
  end
  local want = {
    'by-bash.txt:1:turn 1 created +1 -0 (bash): +x',
    'notes.txt:1:turn 1 created +2 -0 (write_file): +a',
    'main.go:6:turn 1 modified +1 -1 (str_replace): -\tfmt.Println("helo")',
    'other.txt:1:turn 2 created +1 -0 (write_file): +o',
  }
  assert(vim.deep_equal(got, want), 'quickfix:\n' .. table.concat(got, '\n'))
  assert(vim.bo[vim.api.nvim_get_current_buf()].buftype == 'quickfix', 'the quickfix window is not open')
  vim.cmd('cclose')
  step(':AgentChanges listed ' .. #got .. ' hunks of 4 files in 2 turns')

  -- :AgentDiff: before and after of main.go in a diff split.
  vim.api.nvim_set_current_win(src)
  local before, after
  changes.diff({ 'sub/main.go' }, function(b, a)
    before, after = b, a
  end)
  wait(5000, function()
    return before ~= nil
  end, 'the diff split')
  local function has(b, line)
    return vim.tbl_contains(vim.api.nvim_buf_get_lines(b, 0, -1, false), line)
  end
  assert(has(before, '\tfmt.Println("helo")') and has(after, '\tfmt.Println("hello")'), 'diff sides')
  assert(vim.api.nvim_buf_get_name(before):find('agent-lsp://turn-1/before/sub/main.go', 1, true), vim.api.nvim_buf_get_name(before))
  for _, b in ipairs({ before, after }) do
    local w = vim.fn.bufwinid(b)
    assert(w > 0 and vim.wo[w].diff, 'a diff side is not shown with diff on')
    assert(vim.bo[b].filetype == 'go', 'filetype ' .. vim.bo[b].filetype)
  end
  -- The command form, on the current buffer's file and a turn number.
  vim.cmd('diffoff!')
  vim.api.nvim_win_close(vim.fn.bufwinid(before), true)
  vim.api.nvim_win_close(vim.fn.bufwinid(after), true)
  vim.api.nvim_set_current_win(src)
  vim.cmd('AgentDiff 1')
  wait(5000, function()
    return vim.fn.bufnr('agent-lsp://turn-1/after/sub/main.go') > 0 and #vim.api.nvim_tabpage_list_wins(0) >= 3
  end, ':AgentDiff 1 on the current buffer')
  vim.cmd('diffoff!')
  for _, w in ipairs(vim.api.nvim_tabpage_list_wins(0)) do
    if w ~= src and vim.api.nvim_win_get_buf(w) ~= st.bufnr then
      vim.api.nvim_win_close(w, true)
    end
  end
  step(':AgentDiff showed main.go before/after turn 1')

  -- :AgentUndo: the last turn (other.txt goes).
  local n = #notes
  vim.api.nvim_set_current_win(src)
  vim.cmd('AgentUndo')
  wait(5000, function()
    return noted('undid turn 2: 1 file reverted', n + 1) ~= nil
  end, 'the undo of turn 2')
  wait(3000, function()
    return not exists(ws .. '/other.txt')
  end, 'other.txt deleted')
  -- The user edits another line of main.go (unsaved); :AgentUndo 1 takes
  -- back turn 1 (the last not undone) and keeps it.
  vim.api.nvim_buf_set_lines(buf, 2, 3, false, { 'import "fmt" // the user\'s' })
  n = #notes
  vim.cmd('AgentUndo 1')
  wait(5000, function()
    return noted('undid turn 1: 3 files reverted', n + 1) ~= nil
  end, 'the undo of turn 1')
  wait(3000, function()
    return has(buf, '\tfmt.Println("helo")')
  end, 'main.go reverted in the buffer')
  assert(has(buf, 'import "fmt" // the user\'s'), "the user's line was lost")
  assert(vim.bo[buf].modified, 'the buffer should hold the unsaved undo')
  wait(3000, function()
    return not exists(ws .. '/notes.txt') and not exists(ws .. '/by-bash.txt')
  end, 'notes.txt and by-bash.txt deleted')
  step(":AgentUndo took back turn 2, then turn 1 with the user's line kept")

  -- A turn whose line the user then overwrites: a conflict, reported, and
  -- the file left as the user has it.
  run('third change')
  assert(has(buf, 'package main // agent'), 'turn 3 not in the buffer')
  vim.api.nvim_buf_set_lines(buf, 0, 1, false, { 'package mine' })
  n = #notes
  vim.cmd('AgentUndo all')
  wait(5000, function()
    return noted('undid turn 3', n + 1) ~= nil
  end, 'the undo of turn 3')
  local w = noted('undid turn 3', n + 1)
  assert(w.level == vim.log.levels.WARN and w.msg:find('left as you edited them: sub/main.go', 1, true), 'conflict report: ' .. w.msg)
  assert(has(buf, 'package mine') and has(buf, 'import "fmt" // the user\'s'), 'the user\'s text changed')
  -- Nothing left; a bad argument is refused.
  n = #notes
  vim.cmd('AgentUndo')
  wait(5000, function()
    return noted('nothing left to undo', n + 1) ~= nil
  end, 'nothing left')
  vim.cmd('AgentUndo two')
  assert(noted(':AgentUndo "two": give a number', n + 1), 'bad argument not refused')
  -- The quickfix list marks the undone turns and the conflict.
  vim.cmd('AgentChanges')
  wait(5000, function()
    for _, it in ipairs(vim.fn.getqflist()) do
      if it.type == 'W' and it.text:find('turn 3:', 1, true) then
        return true
      end
    end
  end, 'the conflict in the quickfix list')
  assert(vim.fn.getqflist()[1].text:find('turn 1 [undone]', 1, true), vim.fn.getqflist()[1].text)
  step('a conflict left the user\'s line and was reported')
  agent.stop()
end)

watchdog:stop()
if ok then
  out('PASS')
  vim.cmd('qa!')
else
  out('FAIL: ' .. tostring(err))
  vim.cmd('cquit 1')
end
