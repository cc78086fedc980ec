-- agent-lsp driven by Neovim's built-in LSP client (0.7+, no plugin).
-- lsp/nvim_test.go runs it:
--   nvim --headless --clean -n -i NONE -c "luafile nvim_test.lua"
-- Env: AGENT_LSP_BIN (the server), AGENT_LSP_WS (a workspace holding
-- main.go and other.txt), AGENT_LSP_MODEL_URL (the scripted model:
-- read_file main.go, str_replace "old" -> "new", str_replace "main" ->
-- "Main" everywhere (two edits in one WorkspaceEdit), read_file main.go,
-- read_file other.txt,
-- str_replace "one" -> "ONE" then "ONE" -> "TWO" in it (not open: Neovim
-- loads it into a buffer it does not attach), bash "touch made.txt" (asked),
-- bash "cat other.txt", then "done"), AGENT_LSP_TIMEOUT_MS.
-- Exit status: 0 pass, 1 failure (:cquit), 2 watchdog timeout.
--
-- Traps (see the editor-clients recipe): the default showMessageRequest
-- handler blocks headless nvim forever (inputlist), so it is overridden;
-- an uncaught Lua error would leave nvim running and :qa! exits 0 after
-- a failure, so everything runs in pcall and failures end with :cquit; a
-- raw luv timer (not schedule_wrap'ed) is the watchdog.

local function out(s) io.stdout:write(s .. '\n'); io.stdout:flush() end

local watchdog = vim.loop.new_timer()
watchdog:start(tonumber(vim.env.AGENT_LSP_TIMEOUT_MS or '30000'), 0, function()
  io.stdout:write('FAIL: watchdog timeout\n'); io.stdout:flush(); os.exit(2)
end)

local function wait(ms, what, pred)
  assert(vim.wait(ms, pred, 20), 'timed out waiting for ' .. what)
end

local ok, err = pcall(function()
  local ws = assert(vim.env.AGENT_LSP_WS, 'AGENT_LSP_WS')
  local file = ws .. '/main.go'
  vim.cmd('edit ' .. vim.fn.fnameescape(file))
  local bufnr = vim.api.nvim_get_current_buf()
  -- Unsaved text, different from the disk, with an emoji before the edit.
  vim.api.nvim_buf_set_lines(bufnr, 0, -1, false, { 'package main', '', '// 😀 say old things', 'func main() {}' })

  local asked, events = {}, {}
  local exit_code, inited
  local handlers = {
    ['window/showMessageRequest'] = function(_, params)
      table.insert(asked, params)
      for _, a in ipairs(params.actions or {}) do
        if a.title == 'Allow once' then return a end
      end
      return vim.NIL -- 0.7 needs a value: nil errors
    end,
    ['agent/event'] = function(_, params) table.insert(events, params) end,
    ['window/logMessage'] = function() end,
  }
  local id = vim.lsp.start_client({
    name = 'agent-lsp',
    cmd = { assert(vim.env.AGENT_LSP_BIN, 'AGENT_LSP_BIN'), 'serve' },
    root_dir = ws,
    handlers = handlers,
    init_options = { baseUrl = vim.env.AGENT_LSP_MODEL_URL, model = 'scripted', apiKey = 'k', approvalTimeout = '20s' },
    on_init = function() inited = true end,
    on_exit = function(code) exit_code = code end,
  })
  assert(id, 'start_client failed')
  assert(vim.lsp.buf_attach_client(bufnr, id), 'buf_attach_client failed')
  wait(10000, 'initialize', function() return inited end)
  local client = assert(vim.lsp.get_client_by_id(id), 'no client')

  -- Type after the emoji once attached: an incremental didChange whose
  -- UTF-16 column counts the emoji as two units.
  vim.api.nvim_buf_set_text(bufnr, 2, #'// 😀 ', 2, #'// 😀 ', { 'we ' })

  local res, rerr
  local sent = client.request('agent/prompt', {
    prompt = 'say new things, then make made.txt',
    textDocument = { uri = vim.uri_from_bufnr(bufnr) },
  }, function(e, r) rerr, res = e, r; if rerr == nil and r == nil then res = vim.NIL end end, bufnr)
  assert(sent, 'agent/prompt was not sent')
  wait(20000, 'the agent/prompt result', function() return res ~= nil or rerr ~= nil end)
  assert(rerr == nil, 'agent/prompt failed: ' .. vim.inspect(rerr))
  assert(res.reason == 'end_turn' and res.toolCalls == 9, 'result ' .. vim.inspect(res))

  -- The edit landed in the buffer, at the right UTF-16 column; unsaved.
  local lines = vim.api.nvim_buf_get_lines(bufnr, 0, -1, false)
  assert(lines[3] == '// 😀 we say new things', 'buffer ' .. vim.inspect(lines))
  assert(lines[1] == 'package Main' and lines[4] == 'func Main() {}', 'buffer after replace_all ' .. vim.inspect(lines))
  assert(vim.bo[bufnr].modified, 'the buffer was saved')
  assert(vim.fn.readfile(file)[1] == 'package main // disk', 'the disk changed: ' .. vim.inspect(vim.fn.readfile(file)))

  -- other.txt was not open: Neovim applied both edits to a buffer it
  -- loaded (unsaved); the server wrote the file before the commands ran.
  local other = vim.uri_to_bufnr(vim.uri_from_fname(ws .. '/other.txt'))
  local olines = vim.api.nvim_buf_get_lines(other, 0, -1, false)
  assert(olines[1] == 'other: TWO', 'other.txt buffer ' .. vim.inspect(olines))
  assert(vim.fn.readfile(ws .. '/other.txt')[1] == 'other: TWO', 'other.txt on disk ' .. vim.inspect(vim.fn.readfile(ws .. '/other.txt')))

  -- The bash permission prompt (Deny first), answered "Allow once"; the command ran.
  assert(#asked == 1, 'prompts ' .. vim.inspect(asked))
  local msg = asked[1].message
  assert(msg:find('wants to run `touch made.txt`', 1, true), 'prompt ' .. msg)
  local titles = vim.tbl_map(function(a) return a.title end, asked[1].actions)
  assert(table.concat(titles, '|') == 'Deny|Allow once|Allow for this session', 'actions ' .. vim.inspect(titles))
  assert(vim.loop.fs_stat(ws .. '/made.txt'), 'made.txt was not created')

  -- The events: the tool results, none an error, then the end.
  local results = {}
  for _, e in ipairs(events) do
    if e.type == 'tool_result' then table.insert(results, e.name .. (e.isError and '!' or '')) end
  end
  local read -- the first tool_result: read_file main.go
  for _, e in ipairs(events) do
    if e.type == 'tool_result' then read = e; break end
  end
  assert(read.result:find('// 😀 we say old things', 1, true), 'read_file saw ' .. read.result)
  assert(table.concat(results, ',') == 'read_file,str_replace,str_replace,read_file,read_file,str_replace,str_replace,bash,bash', 'tool results ' .. table.concat(results, ','))
  -- The server's copy of the buffer after the two-edit didChange: what
  -- the buffer holds, line for line.
  local reread
  for _, e in ipairs(events) do
    if e.type == 'tool_result' and e.id == 'c2b' then reread = e end
  end
  assert(reread, 'no result for c2b: ' .. vim.inspect(events))
  for i, l in ipairs(lines) do
    assert(reread.result:find(l, 1, true), 'read_file after replace_all lacks line ' .. i .. ' ' .. vim.inspect(l) .. ': ' .. reread.result)
  end
  local cat
  for i = #events, 1, -1 do
    if events[i].type == 'tool_result' then cat = events[i]; break end
  end
  assert(cat.result:find('other: TWO', 1, true), 'cat saw ' .. cat.result)
  assert(events[#events].type == 'end', 'last event ' .. vim.inspect(events[#events]))

  -- Clean shutdown: shutdown + exit, status 0.
  vim.lsp.stop_client(id)
  wait(10000, 'the server to exit', function() return exit_code ~= nil end)
  assert(exit_code == 0, 'server exit status ' .. tostring(exit_code))
  local v = vim.version()
  return string.format('nvim %d.%d.%d: prompt, edit in buffer, showMessageRequest Allow, shutdown', v.major, v.minor, v.patch)
end)

watchdog:stop()
out((ok and 'PASS: ' or 'FAIL: ') .. tostring(err))
vim.cmd(ok and 'qa!' or 'cquit 1')
