-- For Neovim 0.11+: vim.lsp.enable('agent_lsp') uses this config. Options
-- given to require('agent_lsp').setup() (cmd, settings, root markers, ...)
-- apply here too; call setup({ auto_attach = false }) to let
-- vim.lsp.enable do the attaching.
local cfg = require('agent_lsp').lsp_config(nil)
cfg.name = nil -- vim.lsp.enable names the client after this file
cfg.root_dir = nil

---@type vim.lsp.Config
return cfg
