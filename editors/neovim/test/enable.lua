-- Neovim 0.11+: vim.lsp.enable('agent_lsp') attaches through lsp/agent_lsp.lua
-- with the options of setup({ auto_attach = false }). Older versions print
-- PASS (skipped). Env: AGENT_LSP_BIN, E2E_WS.
local watchdog = vim.loop.new_timer()
watchdog:start(15000, 0, function()
  io.stdout:write('FAIL: watchdog timeout\n')
  io.stdout:flush()
  os.exit(3)
end)
local notes = {}
vim.notify = function(msg)
  table.insert(notes, tostring(msg))
  io.stderr:write('notify: ' .. tostring(msg) .. '\n')
end

local ok, err = pcall(function()
  if vim.fn.has('nvim-0.11') ~= 1 then
    return 'skipped (vim.lsp.enable needs 0.11)'
  end
  local ws = assert(vim.env.E2E_WS)
  local agent = require('agent_lsp')
  agent.setup({ cmd = { vim.env.AGENT_LSP_BIN, 'serve' }, auto_attach = false })
  vim.cmd('filetype on')
  vim.lsp.enable('agent_lsp')
  vim.cmd('edit ' .. vim.fn.fnameescape(ws .. '/sub/main.go'))
  local buf = vim.api.nvim_get_current_buf()
  assert(vim.wait(10000, function()
    return vim.api.nvim_buf_get_commands(buf, {}).AgentPrompt ~= nil
  end, 20), 'vim.lsp.enable did not attach')
  local c = vim.lsp.get_clients({ name = 'agent_lsp', bufnr = buf })[1]
  assert(c, 'no client named agent_lsp')
  assert(vim.loop.fs_realpath(c.config.root_dir) == vim.loop.fs_realpath(ws), 'root ' .. tostring(c.config.root_dir))
  assert(c.config.capabilities.experimental.agentLsp.saveRequest == true, 'saveRequest capability missing')
  agent.stop()
  assert(vim.wait(5000, function()
    return vim.lsp.get_client_by_id(c.id) == nil
  end, 20), 'client did not stop')
  for _, n in ipairs(notes) do
    assert(not n:lower():find('deprecat'), 'deprecation warning: ' .. n)
  end
  return 'vim.lsp.enable attached with root ' .. c.config.root_dir
end)

watchdog:stop()
if ok then
  io.stdout:write('PASS: ' .. tostring(err) .. '\n')
  io.stdout:flush()
  vim.cmd('qa!')
else
  io.stdout:write('FAIL: ' .. tostring(err) .. '\n')
  io.stdout:flush()
  vim.cmd('cquit 1')
end
