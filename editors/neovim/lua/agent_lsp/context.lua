-- Mentions in a prompt: #buffer (the buffer the prompt was asked from) and
-- #file:path (a file, relative to the workspace root, or absolute), sent as
-- agent/prompt's context items; the server reads them (unsaved buffers
-- win) and shows them to the model with their paths.
local M = {}

--- The context items of `text`: { {uri = ...}, ... } (without duplicates),
--- and the problems (files that do not exist).
function M.parse(text, bufnr, root)
  local items, seen, problems = {}, {}, {}
  local function add(uri)
    if not seen[uri] then
      seen[uri] = true
      table.insert(items, { uri = uri })
    end
  end
  -- A mention starts the text or follows a space, so "a#buffer" is text.
  local s = ' ' .. (text or '')
  for _ in s:gmatch('%s#buffer%f[^%w_]') do
    if bufnr and vim.api.nvim_buf_is_valid(bufnr) and vim.api.nvim_buf_get_name(bufnr) ~= '' then
      add(vim.uri_from_bufnr(bufnr))
    end
  end
  for path in s:gmatch('%s#file:(%S+)') do
    path = path:gsub('[,.;:!?)]+$', '')
    local full = path
    if not path:match('^/') and not path:match('^~') then
      full = (root or vim.loop.cwd()) .. '/' .. path
    end
    full = vim.fn.fnamemodify(full, ':p')
    if vim.loop.fs_stat(full) then
      add(vim.uri_from_fname((full:gsub('/$', ''))))
    else
      table.insert(problems, path)
    end
  end
  return items, problems
end

return M
