-- One place for the API differences between Neovim 0.7 and 0.12.
local M = {}

M.has_011 = vim.fn.has('nvim-0.11') == 1
M.has_010 = vim.fn.has('nvim-0.10') == 1

--- client:request on 0.11+ (the dot form warns there), client.request before
--- (where the colon form would shift the arguments).
function M.request(client, method, params, handler, bufnr)
  if M.has_011 then
    return client:request(method, params, handler, bufnr)
  end
  return client.request(method, params, handler, bufnr)
end

function M.notify(client, method, params)
  if M.has_011 then
    return client:notify(method, params)
  end
  return client.notify(method, params)
end

function M.stop(client, force)
  if M.has_011 then
    return client:stop(force)
  end
  return client.stop(force)
end

--- Clients named `name`, optionally only those attached to bufnr.
function M.clients(name, bufnr)
  local list
  if vim.lsp.get_clients then
    list = vim.lsp.get_clients({ name = name, bufnr = bufnr })
  elseif bufnr then
    list = vim.tbl_values(vim.lsp.buf_get_clients(bufnr))
  else
    list = vim.lsp.get_active_clients()
  end
  local out = {}
  for _, c in ipairs(list) do
    if c.name == name then
      table.insert(out, c)
    end
  end
  return out
end

-- 0.7 has no vim.lsp.start: one client per root, started by hand.
local started = {}

--- Starts (or reuses) the client for config.root_dir and attaches bufnr.
--- Returns the client id or nil.
function M.start(config, bufnr)
  if vim.lsp.start then
    return vim.lsp.start(config, { bufnr = bufnr })
  end
  local id = started[config.root_dir]
  if not id or not vim.lsp.get_client_by_id(id) then
    id = vim.lsp.start_client(config)
    started[config.root_dir] = id
  end
  if id then
    vim.lsp.buf_attach_client(bufnr, id)
  end
  return id
end

--- A health reporter with the same names on every version.
function M.health()
  local h = vim.health or {}
  if h.start then
    return h
  end
  if h.report_start then
    return { start = h.report_start, ok = h.report_ok, warn = h.report_warn, error = h.report_error, info = h.report_info }
  end
  local old = require('health')
  return { start = old.report_start, ok = old.report_ok, warn = old.report_warn, error = old.report_error, info = old.report_info }
end

return M
