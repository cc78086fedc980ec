-- agent-lsp's entry point: loaded once, does nothing until setup() beyond
-- defining the commands (which load the plugin lazily).
if vim.g.loaded_agent_lsp then
  return
end
vim.g.loaded_agent_lsp = 1
if vim.fn.has('nvim-0.7') ~= 1 then
  return
end
require('agent_lsp').commands()
