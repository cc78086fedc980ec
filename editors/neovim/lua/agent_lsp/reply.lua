-- Answering a server→client request later, when a picker's callback runs,
-- without blocking the editor, on every supported Neovim.
--
-- Neovim 0.10+ runs server-request handlers in a coroutine: the handler
-- yields and is resumed with the answer. Before, the RPC layer sends
-- whatever the handler returns as soon as it returns. There the handler
-- returns a unique token instead, and a wrapper around the RPC's sender
-- (found once per client through debug.getupvalue: Neovim exposes no
-- "respond later" API before 0.10) holds that response back and sends the
-- real answer under the same request id once the user has chosen. Only when
-- neither works (an RPC layout this file does not know) does it fall back
-- to vim.wait, which keeps the event loop running but not the keyboard, so
-- only a synchronous picker can answer there; M.mode says which one is used.
local M = {}

local tokens = setmetatable({}, { __mode = 'k' }) -- token -> { id?, send?, answer? }

-- Finds the upvalue `name` of fn, returning its index and value.
local function upvalue(fn, name)
  if type(fn) ~= 'function' then
    return nil
  end
  for i = 1, 200 do
    local n, v = debug.getupvalue(fn, i)
    if n == nil then
      return nil
    end
    if n == name then
      return i, v
    end
  end
end

-- Wraps a sender so responses carrying one of our tokens are held back.
-- send(payload) for 0.7's encode_and_send; the real answer goes out
-- through the original function when it is known.
local function hold(orig)
  return function(payload, ...)
    local t = type(payload) == 'table' and tokens[payload.result]
    if t then
      t.id, t.send = payload.id, function(result)
        return orig({ jsonrpc = '2.0', id = payload.id, result = result })
      end
      if t.answer ~= nil then
        t.send(t.answer)
      end
      return true
    end
    return orig(payload, ...)
  end
end

-- The same for 0.8/0.9's Client:send_response(id, err, result).
local function hold_method(orig)
  return function(self, id, err, result)
    local t = tokens[result]
    if t then
      t.id, t.send = id, function(r)
        return orig(self, id, nil, r)
      end
      if t.answer ~= nil then
        t.send(t.answer)
      end
      return true
    end
    return orig(self, id, err, result)
  end
end

local hooked = setmetatable({}, { __mode = 'k' }) -- rpc -> true

--- Installs the deferred-response hook on client's RPC; returns true when
--- responses can be deferred.
function M.hook(client)
  local rpc = client and client.rpc
  if type(rpc) ~= 'table' then
    return false
  end
  if hooked[rpc] then
    return true
  end
  -- 0.7: request/notify share the local encode_and_send with send_response.
  local idx, f = upvalue(rpc.notify, 'encode_and_send')
  if idx and type(f) == 'function' then
    debug.setupvalue(rpc.notify, idx, hold(f))
    hooked[rpc] = true
    return true
  end
  -- 0.8/0.9: the public functions close over a Client with send_response.
  local _, c = upvalue(rpc.notify, 'client')
  if type(c) == 'table' and type(c.send_response) == 'function' then
    c.send_response = hold_method(c.send_response)
    hooked[rpc] = true
    return true
  end
  return false
end

--- How handlers answer later on this Neovim: 'coroutine', 'deferred' or
--- 'wait' (set by M.ask when it first runs).
M.mode = nil

--- Asks through start(on_answer) (a vim.ui.select call, say) and returns
--- what the handler must return. default is the answer when nothing
--- better comes (a dismissed picker gives on_answer(nil)); wait_ms bounds
--- the vim.wait fallback.
function M.ask(client, start, default, wait_ms)
  local co, main = coroutine.running()
  local answer, done = nil, false
  if co and not main then
    local waiting = false
    start(function(v)
      answer, done = v, true
      if waiting then
        vim.schedule(function()
          coroutine.resume(co)
        end)
      end
    end)
    if not done then
      M.mode = 'coroutine'
      waiting = true
      coroutine.yield()
    end
    return answer == nil and default or answer
  end
  if M.hook(client) then
    local token = {}
    local t = {}
    tokens[token] = t
    start(function(v)
      if done then
        return
      end
      answer, done = v, true
      if t.send then
        t.send(v == nil and default or v)
      else
        t.answer = v == nil and default or v
      end
    end)
    if done then
      tokens[token] = nil
      return answer == nil and default or answer
    end
    M.mode = 'deferred'
    return token
  end
  M.mode = 'wait'
  start(function(v)
    answer, done = v, true
  end)
  if not done then
    vim.wait(wait_ms, function()
      return done
    end, 50)
  end
  return answer == nil and default or answer
end

return M
