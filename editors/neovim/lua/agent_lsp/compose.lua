-- The multi-line prompt (:AgentAsk, a scratch float: <C-s> or :w sends, q
-- cancels) and the inline edit (:AgentEdit on a range: an instruction,
-- then the server's agent-lsp.edit command, whose edit lands in the buffer).
local compat = require('agent_lsp.compat')
local config = require('agent_lsp.config')

local M = {}

local function notify(msg, level)
  vim.notify('agent-lsp: ' .. msg, level or vim.log.levels.INFO)
end

local HINT = '<C-s> or :w sends · q cancels'

--- Opens the prompt float; on_send(text) gets its lines joined by "\n".
--- Returns the float's buffer.
function M.open(on_send, initial)
  local b = vim.api.nvim_create_buf(false, true)
  vim.bo[b].buftype = 'acwrite'
  vim.bo[b].bufhidden = 'wipe'
  vim.bo[b].swapfile = false
  vim.bo[b].filetype = 'markdown'
  pcall(vim.api.nvim_buf_set_name, b, ('agent-lsp://prompt/%d'):format(b))
  if initial and initial ~= '' then
    vim.api.nvim_buf_set_lines(b, 0, -1, false, vim.split(initial, '\n', { plain = true }))
  end
  local w = math.max(30, math.floor(vim.o.columns * 0.6))
  local h = math.max(3, math.min(12, math.floor(vim.o.lines * 0.3)))
  local o = {
    relative = 'editor', width = w, height = h, style = 'minimal',
    row = math.floor((vim.o.lines - h) / 2) - 1, col = math.floor((vim.o.columns - w) / 2),
    border = config.get().ui.float.border,
  }
  if vim.fn.has('nvim-0.9') == 1 and o.border ~= 'none' then
    o.title, o.title_pos = ' Ask agent · ' .. HINT .. ' ', 'center'
  end
  local win = vim.api.nvim_open_win(b, true, o)
  vim.wo[win].wrap = true
  local sent = false
  local function close()
    if vim.api.nvim_win_is_valid(win) then
      vim.api.nvim_win_close(win, true)
    end
  end
  local function send()
    if sent then
      return
    end
    local text = table.concat(vim.api.nvim_buf_get_lines(b, 0, -1, false), '\n')
    if vim.trim(text) == '' then
      notify('the prompt is empty (q cancels)', vim.log.levels.WARN)
      return
    end
    sent = true
    vim.bo[b].modified = false
    vim.cmd('stopinsert')
    close()
    on_send(text)
  end
  M.last = { buf = b, win = win, send = send, cancel = close }
  local map = function(mode, lhs, fn, desc)
    vim.keymap.set(mode, lhs, fn, { buffer = b, nowait = true, silent = true, desc = desc })
  end
  map({ 'n', 'i' }, '<C-s>', send, 'Send the prompt')
  map('n', 'q', close, 'Cancel the prompt')
  vim.api.nvim_create_autocmd('BufWriteCmd', { buffer = b, callback = send })
  if vim.fn.has('nvim-0.9') ~= 1 then
    vim.api.nvim_echo({ { 'Ask agent: ' .. HINT, 'Comment' } }, false, {})
  end
  vim.cmd('startinsert')
  return b
end

--- :AgentEdit: asks for an instruction (or takes it) and runs agent-lsp.edit
--- on the range. cb(err, result) when the run ends.
function M.edit(client, bufnr, range, instruction, cb)
  local function run(text)
    if not text or vim.trim(text) == '' then
      return
    end
    local arg = { uri = vim.uri_from_bufnr(bufnr), range = range, instruction = text }
    notify('editing with agent…')
    compat.request(client, 'workspace/executeCommand', { command = 'agent-lsp.edit', arguments = { arg } }, function(err, res)
      if err then
        notify('edit failed: ' .. tostring(err.message), vim.log.levels.ERROR)
      elseif type(res) == 'table' and res.reason ~= 'end_turn' then
        notify(('edit ended %s: %s'):format(tostring(res.reason), tostring(res.error or res.text)), vim.log.levels.WARN)
      else
        notify('edit done (u takes it back)')
      end
      require('agent_lsp.handlers').report_hidden()
      if cb then
        cb(err, res)
      end
    end, bufnr)
  end
  if instruction and vim.trim(instruction) ~= '' then
    run(instruction)
  else
    vim.ui.input({ prompt = 'Edit with agent: ' }, run)
  end
end

--- Maps config.keys when keymaps = true.
function M.keymaps()
  local c = config.get()
  if not c.keymaps then
    return
  end
  for _, k in ipairs(c.keys or {}) do
    vim.keymap.set(k.mode or 'n', k[1], k[2], { desc = k.desc, silent = k.silent ~= false, noremap = k.noremap ~= false })
  end
end

return M
