-- What every headless driver of the plugin's tests shares: output on
-- stdout, a raw libuv watchdog (a blocked main loop must not stop the
-- exit), vim.notify captured, a bounded wait and named steps. A driver
-- loads it with dofile next to itself.
local M = {}

function M.out(s)
  io.stdout:write(s .. '\n')
  io.stdout:flush()
end

-- watchdog exits the process with status 3 after ms (E2E_TIMEOUT_MS wins).
function M.watchdog(ms)
  local t = vim.loop.new_timer()
  t:start(tonumber(vim.env.E2E_TIMEOUT_MS or tostring(ms)), 0, function()
    -- Not schedule_wrap'ed: a blocked main loop must not stop the exit.
    io.stdout:write('FAIL: watchdog timeout\n')
    io.stdout:flush()
    os.exit(3)
  end)
  return t
end

-- capture_notes replaces vim.notify; each note is {msg, level}.
function M.capture_notes()
  local notes = {}
  vim.notify = function(msg, level)
    table.insert(notes, { msg = tostring(msg), level = level })
    io.stderr:write(('notify[%s]: %s\n'):format(tostring(level), tostring(msg)))
  end
  return notes
end

function M.wait(ms, pred, what)
  if not vim.wait(ms, pred, 20) then
    error('timed out waiting for ' .. what, 2)
  end
end

M.steps = {}
function M.step(s)
  table.insert(M.steps, s)
  io.stderr:write('step: ' .. s .. '\n')
end

return M
