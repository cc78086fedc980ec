-- Unit tests of the plugin's pure logic, run by neovim_test.go in headless
-- Neovim: pcall, a watchdog, and :cquit on failure.
local watchdog = vim.loop.new_timer()
watchdog:start(10000, 0, function()
  io.stdout:write('FAIL: watchdog timeout\n')
  io.stdout:flush()
  os.exit(3)
end)

local n = 0
local function eq(want, got, what)
  n = n + 1
  if not vim.deep_equal(want, got) then
    error(('%s: want %s, got %s'):format(what, vim.inspect(want), vim.inspect(got)), 2)
  end
end

local ok, err = pcall(function()
  local config = require('agent_lsp.config')

  -- merge: maps merge, lists replace
  local c = config.merge(config.defaults, { root_markers = { 'Makefile' }, ui = { layout = 'float' }, settings = { model = 'm' } })
  eq({ 'Makefile' }, c.root_markers, 'root_markers replaced')
  eq('float', c.ui.layout, 'ui.layout')
  eq(15, c.ui.size, 'ui.size kept')
  eq({ model = 'm' }, c.settings, 'settings')
  eq({ 'agent-lsp', 'serve' }, c.cmd, 'cmd default')
  eq({ 'x' }, config.merge(config.defaults, { cmd = { 'x' } }).cmd, 'cmd replaced')
  eq(false, config.defaults.root_markers[1] == 'Makefile', 'defaults untouched')

  -- validate
  eq({}, config.validate(config.merge(config.defaults, {})), 'defaults valid')
  local p = config.validate(config.merge(config.defaults, { cmd = 'agent-lsp', ui = { layout = 'tab' }, settings = { modle = 'x', maxTurns = '3' } }))
  local all = table.concat(p, '\n')
  assert(all:find('cmd: expected a list', 1, true), all)
  assert(all:find('ui.layout', 1, true), all)
  assert(all:find('settings.modle: unknown key', 1, true), all)
  assert(all:find('settings.maxTurns: expected number', 1, true), all)
  eq(4, #p, 'problem count: ' .. all)
  local _, problems = config.set({ cmd = {} })
  eq({ 'cmd: empty' }, problems, 'empty cmd')
  config.set({})

  -- root detection
  local base = vim.fn.tempname()
  vim.fn.mkdir(base .. '/repo/.git', 'p')
  vim.fn.mkdir(base .. '/repo/pkg/inner', 'p')
  vim.fn.writefile({}, base .. '/repo/pkg/go.mod')
  vim.fn.writefile({ 'x' }, base .. '/repo/pkg/inner/a.go')
  base = vim.loop.fs_realpath(base)
  eq(base .. '/repo/pkg', config.find_root(base .. '/repo/pkg/inner/a.go', { '.git', 'go.mod' }), 'nearest marker wins')
  eq(base .. '/repo', config.find_root(base .. '/repo/pkg/inner/a.go', { '.git' }), 'only .git')
  eq(base .. '/repo', config.find_root(base .. '/repo', { '.git' }), 'a directory itself')
  eq(nil, config.find_root(base .. '/repo/pkg/inner/a.go', { 'no-such-marker-here' }), 'no marker')
  vim.cmd('cd ' .. vim.fn.fnameescape(base))
  vim.cmd('edit ' .. vim.fn.fnameescape(base .. '/repo/pkg/inner/a.go'))
  eq(base .. '/repo', config.root_for(0, { '.git' }), 'root_for')
  eq(vim.loop.cwd(), config.root_for(0, { 'nothing' }), 'root_for falls back to the cwd')

  -- doctor parsing
  local d = require('agent_lsp.health').parse_doctor(table.concat({
    'agent-lsp dev',
    'workspace: /w',
    'config:    no configuration file (defaults and environment)',
    'endpoint:  http://127.0.0.1:1/v1',
    'model:     m',
    'api key:   not set (fine for local servers)',
    'sandbox:   landlock (landlock-fs(abi 7), netns)',
    '           landlock: ABI 7',
    'server:    FAIL: connection refused',
    '           Start a server there.',
  }, '\n'))
  eq('http://127.0.0.1:1/v1', d.endpoint, 'endpoint')
  eq('landlock (landlock-fs(abi 7), netns)\nlandlock: ABI 7', d.sandbox, 'sandbox with details')
  eq('not set (fine for local servers)', d['api key'], 'api key')
  assert(d.server:match('^FAIL'), d.server)

  -- ui helpers and ranges
  local ui = require('agent_lsp.ui')
  eq('go test ./...', ui.summary('bash', '{"command":"go test ./..."}'), 'summary command')
  eq('a.go', ui.summary('read_file', '{"path":"a.go"}'), 'summary path')
  local agent = require('agent_lsp')
  local b = vim.api.nvim_create_buf(false, true)
  vim.api.nvim_buf_set_lines(b, 0, -1, false, { 'héllo wörld', 'two' })
  eq({ start = { line = 0, character = 0 }, ['end'] = { line = 1, character = 3 } }, agent.make_range(b, 1, 2, nil, 'utf-16'), 'linewise')
  eq({ start = { line = 0, character = 0 }, ['end'] = { line = 0, character = 11 } }, agent.make_range(b, 1, 1, nil, 'utf-16'), 'linewise utf-16')
  eq({ start = { line = 0, character = 0 }, ['end'] = { line = 0, character = 13 } }, agent.make_range(b, 1, 1, nil, 'utf-8'), 'linewise utf-8')

  -- :AgentPrompt with no text asks through vim.ui.input
  local asked
  local orig_input = vim.ui.input
  vim.ui.input = function(o, cb)
    asked = o.prompt
    cb(nil)
  end
  vim.cmd('AgentPrompt')
  vim.ui.input = orig_input
  eq('Ask agent: ', asked, 'vim.ui.input prompt')
  -- select "llo wö" (bytes 3..9, the ö is 2 bytes at 8..9, mark on its first byte)
  local r16 = agent.make_range(b, 1, 1, { { 1, 3 }, { 1, 8 } }, 'utf-16')
  eq({ start = { line = 0, character = 2 }, ['end'] = { line = 0, character = 8 } }, r16, 'charwise utf-16')
  local r8 = agent.make_range(b, 1, 1, { { 1, 3 }, { 1, 8 } }, 'utf-8')
  eq({ start = { line = 0, character = 3 }, ['end'] = { line = 0, character = 10 } }, r8, 'charwise utf-8')

  -- the float layout
  config.set({ ui = { layout = 'float' } })
  local fst = { tab = 99, runs = 0 }
  local fw = ui.show(fst)
  eq('editor', vim.api.nvim_win_get_config(fw).relative, 'float window')
  eq('markdown', vim.bo[fst.bufnr].filetype, 'answer filetype')
  ui.prompt(fst, 'hi')
  ui.text(fst, 'one\ntw')
  ui.text(fst, 'o')
  ui.tool_start(fst, { id = 'x', name = 'bash', arguments = '{"command":"ls"}' })
  ui.tool_result(fst, { id = 'x', name = 'bash', result = 'a\nb\n' })
  ui.text(fst, 'done')
  ui.todos(fst, { { content = 'read', status = 'completed' }, { content = 'fix', status = 'in_progress' } })
  eq({ '## hi', 'one', 'two', '✓ bash: ls', '    a', '    b', '', 'done', '☰ todos: 1/2 done', '    ☑ read', '    ◐ fix' },
    ui.lines(fst), 'answer lines')
  eq(1, vim.api.nvim_win_call(fw, function() return vim.fn.foldlevel(10) end), 'todo items are folded')
  vim.api.nvim_win_close(fw, true)
  config.set({})

  -- the context gauge and the plain view of command output
  local session = require('agent_lsp.session')
  eq('', session.gauge({}), 'gauge before any request')
  eq('10% of 32k context', session.gauge({ context = { tokens = 3300, window = 32768 } }), 'gauge')
  eq('100% of 128k context', session.gauge({ context = { tokens = 131072, window = 131072 } }), 'gauge full')
  eq('1.5k tokens of context', session.gauge({ context = { tokens = 1536 } }), 'gauge without a window')
  eq('900 tokens of context', session.gauge({ context = { tokens = 900, window = 0 } }), 'gauge, window 0')
  local ui = require('agent_lsp.ui')
  eq({ 'ok', 'done 3/3' }, ui.plain_lines('\27[1;32mok\27[0m\ndone 1/3\rdone 2/3\rdone 3/3\n'), 'progress and colours')
  eq({ 'a\tb', 'title' }, ui.plain_lines('a\tb\n\27]0;x\7title\7\n'), 'tabs kept, OSC and bells dropped')
  eq('number', type(config.defaults.ui.live_lines), 'ui.live_lines default')
  assert(table.concat(config.validate(config.merge(config.defaults, { ui = { live_lines = 'x' } })), '\n'):find('ui.live_lines', 1, true), 'ui.live_lines not validated')

  -- protocol constants
  local protocol = require('agent_lsp.protocol')
  eq('agent/prompt', protocol.PROMPT, 'PROMPT')

  -- commands exist after the plugin file ran
  assert(vim.fn.exists(':AgentPrompt') == 2, ':AgentPrompt missing')
  assert(vim.fn.exists(':AgentLog') == 2, ':AgentLog missing')
end)

watchdog:stop()
if ok then
  io.stdout:write(('PASS: %d checks\n'):format(n))
  io.stdout:flush()
  vim.cmd('qa!')
else
  io.stdout:write('FAIL: ' .. tostring(err) .. '\n')
  io.stdout:flush()
  vim.cmd('cquit 1')
end
