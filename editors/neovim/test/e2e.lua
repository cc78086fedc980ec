-- End-to-end test of the plugin against the real agent-lsp binary and a
-- scripted model server (started by neovim_test.go). Headless-safe: the
-- whole script runs in pcall, a raw libuv watchdog exits on a hang, and
-- failure exits through :cquit (never :qa!, which exits 0).
--
-- Env: AGENT_LSP_BIN (the binary), E2E_WS (the workspace, with .git),
--      E2E_SLOW_MARK (a file the model server creates when the slow reply
--      starts), E2E_TIMEOUT_MS.
local h = dofile(vim.fn.fnamemodify(debug.getinfo(1, 'S').source:sub(2), ':p:h') .. '/helpers.lua')
local out, wait, step, steps = h.out, h.wait, h.step, h.steps
local watchdog = h.watchdog(25000)
local notes = h.capture_notes()
local function read(path)
  local f = io.open(path, 'r')
  if not f then
    return nil
  end
  local s = f:read('*a')
  f:close()
  return s
end

local ok, err = pcall(function()
  local bin = assert(vim.env.AGENT_LSP_BIN, 'AGENT_LSP_BIN not set')
  local ws = assert(vim.env.E2E_WS, 'E2E_WS not set')
  local agent = require('agent_lsp')
  local compat = require('agent_lsp.compat')
  local events = {}
  agent.setup({
    cmd = { bin, 'serve' },
    ui = { layout = 'split' },
    on_event = function(ev)
      table.insert(events, ev)
    end,
  })

  -- 1. attach, with the root from the .git marker
  vim.cmd('edit ' .. vim.fn.fnameescape(ws .. '/sub/main.go'))
  local buf = vim.api.nvim_get_current_buf()
  local src_win = vim.api.nvim_get_current_win()
  wait(10000, function()
    return vim.api.nvim_buf_get_commands(buf, {}).AgentPrompt ~= nil
  end, 'attach (buffer-local :AgentPrompt)')
  local client = compat.clients(agent.NAME, buf)[1]
  assert(client, 'no agent_lsp client on the buffer')
  local root = vim.loop.fs_realpath(client.config.root_dir)
  assert(root == vim.loop.fs_realpath(ws), 'root_dir ' .. tostring(client.config.root_dir) .. ' is not ' .. ws)
  step('attached, root ' .. root)

  -- 2. diagnostics from another source reach the server
  local dns = vim.api.nvim_create_namespace('e2e-other-server')
  vim.diagnostic.set(dns, buf, { { lnum = 5, col = 1, message = 'e2e: misspelled greeting', severity = 1, source = 'e2e' } })
  vim.wait(400, function() return false end, 20) -- the 150 ms debounce

  -- 3. the prompt; the permission prompt is answered through vim.ui.select
  local asked = {}
  vim.ui.select = function(items, opts, on_choice)
    local titles = {}
    local pick
    for i, it in ipairs(items) do
      titles[i] = opts.format_item and opts.format_item(it) or tostring(it)
      if titles[i] == 'Allow once' then
        pick = it
      end
    end
    table.insert(asked, { prompt = opts.prompt, titles = titles })
    -- Answer later, like a real picker: the handler must wait (0.7: vim.wait,
    -- 0.10+: a coroutine yield) without blocking the event loop.
    vim.defer_fn(function()
      on_choice(pick)
    end, 50)
  end
  local done_autocmds = 0
  vim.api.nvim_create_autocmd('User', {
    pattern = 'AgentLspDone',
    callback = function()
      done_autocmds = done_autocmds + 1
    end,
  })
  vim.cmd('AgentPrompt fix it')
  local st = agent.state()
  assert(st.running, 'not running after :AgentPrompt')
  local first_id = st.id
  wait(20000, function()
    return st.ended and not st.running
  end, 'the end event of the first run')
  local last = events[#events]
  assert(last and last.type == 'end', 'last event is not end: ' .. vim.inspect(last))
  assert(last.reason == 'end_turn', 'first run ended ' .. tostring(last.reason) .. ': ' .. tostring(last.error))
  wait(3000, function()
    return st.result ~= nil
  end, 'the agent/prompt result')
  assert(st.result.sessionId == first_id, 'result session ' .. tostring(st.result.sessionId) .. ' ~= ' .. first_id)
  assert(done_autocmds == 1, 'User AgentLspDone fired ' .. done_autocmds .. ' times')
  step('first run ended end_turn')

  assert(#asked == 1, 'expected one permission prompt, got ' .. vim.inspect(asked))
  local p = asked[1].prompt or ''
  assert(p:find('wants to run `touch made-by-agent.txt`', 1, true) and not p:find('Reason:', 1, true),
    'permission prompt does not name the command in plain words: ' .. p)
  assert(asked[1].titles[1] == 'Deny', 'Deny is not the first (default) action: ' .. vim.inspect(asked[1].titles))
  step('permission prompt: ' .. p:gsub('\n', ' | '))

  -- the edit is in the buffer, saved before bash ran, and undoable
  local lines = vim.api.nvim_buf_get_lines(buf, 0, -1, false)
  assert(vim.tbl_contains(lines, '\tfmt.Println("hello, world")'), 'edit not in the buffer: ' .. vim.inspect(lines))
  local disk = read(ws .. '/sub/main.go') or ''
  assert(disk:find('hello, world', 1, true), 'agent/saveDocuments did not write the buffer: ' .. disk)
  assert(vim.loop.fs_stat(ws .. '/made-by-agent.txt'), 'made-by-agent.txt was not created')
  vim.api.nvim_set_current_win(src_win)
  vim.cmd('normal! u')
  lines = vim.api.nvim_buf_get_lines(buf, 0, -1, false)
  assert(vim.tbl_contains(lines, '\tfmt.Println("helo")'), 'u did not undo the edit: ' .. vim.inspect(lines))
  vim.cmd('exe "normal! \\<C-r>"')
  lines = vim.api.nvim_buf_get_lines(buf, 0, -1, false)
  assert(vim.tbl_contains(lines, '\tfmt.Println("hello, world")'), 'redo failed: ' .. vim.inspect(lines))
  step('edit in buffer, on disk, undoable; made-by-agent.txt exists')

  -- the answer buffer: markdown, the streamed text, folded tool calls
  local ab = st.bufnr
  assert(ab and vim.api.nvim_buf_is_valid(ab), 'no answer buffer')
  assert(vim.bo[ab].filetype == 'markdown', 'answer buffer is not markdown')
  local text = table.concat(vim.api.nvim_buf_get_lines(ab, 0, -1, false), '\n')
  assert(text:find('## fix it', 1, true), 'no prompt header:\n' .. text)
  assert(text:find('Fixed the greeting.', 1, true), 'answer text missing:\n' .. text)
  assert(text:find('✓ bash: touch made-by-agent.txt', 1, true), 'no bash tool line:\n' .. text)
  assert(text:find('✓ str_replace: main.go', 1, true) or text:find('✓ str_replace: sub/main.go', 1, true), 'no str_replace tool line:\n' .. text)
  assert(text:find('e2e: misspelled greeting', 1, true), 'diagnostics did not reach the agent:\n' .. text)
  assert(text:find('end_turn', 1, true), 'no footer:\n' .. text)
  local aw
  for _, w in ipairs(vim.api.nvim_tabpage_list_wins(0)) do
    if vim.api.nvim_win_get_buf(w) == ab then
      aw = w
    end
  end
  assert(aw, 'answer window not shown')
  local header
  for i, l in ipairs(vim.api.nvim_buf_get_lines(ab, 0, -1, false)) do
    if l:find('✓ bash:', 1, true) then
      header = i
    end
  end
  local closed = vim.api.nvim_win_call(aw, function()
    return vim.fn.foldclosed(header)
  end)
  assert(closed == header, 'the bash tool call is not folded (foldclosed=' .. closed .. ')')
  local types = {}
  for _, ev in ipairs(events) do
    types[ev.type] = true
  end
  assert(types.text and types.tool_start and types.tool_result, 'events seen: ' .. vim.inspect(vim.tbl_keys(types)))
  if vim.env.E2E_VERBOSE then
    io.stderr:write('--- answer buffer ---\n' .. text .. '\n---\n')
  end
  step('answer buffer ok')

  -- 4. a follow-up continues the session; cancel it while the model is slow
  local mark = assert(vim.env.E2E_SLOW_MARK, 'E2E_SLOW_MARK not set')
  vim.api.nvim_set_current_win(src_win)
  vim.cmd('5,6AgentPrompt take your time')
  assert(st.id == first_id, 'follow-up did not keep the session id')
  wait(10000, function()
    return vim.loop.fs_stat(mark) ~= nil
  end, 'the slow model request')
  local t0 = vim.loop.hrtime()
  vim.cmd('AgentCancel')
  wait(5000, function()
    return st.ended and not st.running
  end, 'the end of the cancelled run')
  local ms = (vim.loop.hrtime() - t0) / 1e6
  last = events[#events]
  assert(last.type == 'end' and last.reason == 'aborted', 'cancelled run ended ' .. vim.inspect(last))
  wait(3000, function()
    return st.result ~= nil
  end, 'the cancelled prompt result')
  assert(st.result.reason == 'aborted', 'result reason ' .. tostring(st.result.reason))
  step(('cancel: aborted in %.0f ms'):format(ms))

  -- :AgentNew starts a fresh session
  vim.cmd('AgentNew')
  assert(st.id == nil, ':AgentNew kept the session id')

  -- :checkhealth reports the binary, its version, the endpoint and the sandbox
  vim.cmd('checkhealth agent_lsp')
  local health = table.concat(vim.api.nvim_buf_get_lines(0, 0, -1, false), '\n')
  for _, want in ipairs({ 'binary: ' .. bin, 'version: agent-lsp', 'endpoint answers', 'sandbox: ', 'client ' .. client.id .. ' running' }) do
    assert(health:find(want, 1, true), ':checkhealth lacks ' .. want .. ':\n' .. health)
  end
  assert(not health:find('ERROR', 1, true) or health:find('ERROR[^\n]*sandbox'), ':checkhealth has errors:\n' .. health)
  if vim.env.E2E_VERBOSE then
    io.stderr:write('--- checkhealth ---\n' .. health .. '\n---\n')
  end
  vim.cmd('tabclose')
  step('checkhealth ok')

  -- 5. clean shutdown
  local id = client.id
  agent.stop()
  wait(5000, function()
    return vim.lsp.get_client_by_id(id) == nil
  end, 'the client to stop')
  step('client stopped')
  for _, n in ipairs(notes) do
    assert(not n.msg:lower():find('deprecat'), 'deprecation warning: ' .. n.msg)
  end
  return #steps
end)

watchdog:stop()
watchdog:close()
if ok then
  out('PASS: nvim ' .. tostring(vim.version().major) .. '.' .. vim.version().minor .. '.' .. vim.version().patch ..
    ': ' .. table.concat(steps, '; '))
  vim.cmd('qa!')
else
  out('FAIL: ' .. tostring(err))
  out('steps done: ' .. table.concat(steps, '; '))
  vim.cmd('cquit 1')
end
