-- tests/costs_by_hand.lua: what the decision's costs come to, worked out again from a results file's
-- inputs alone (the terms, the cost and offer rows, the projection's hours), for the end-to-end tests
-- that hold the pages to them (tests/e2e/decision.lua, verdict.lua, decision_figures.lua). Written
-- from the method's words, never from src/decide's code: a rented job billed in whole steps of its
-- offer with the setup on the smallest instance that holds it; a machine's hour bought at a use u.
local M = { HY = 8766 }

-- The projection's hours of workload w on system s on n devices, times `scale` (the job's tokens over
-- the workload's): { h, lo, hi, r } or nil (not projected, or it does not fit there).
function M.hours(model, w, s, n, scale)
  scale = scale or 1
  for _, r in ipairs(model.results) do
    local dev = r.series == "projection" and (r.gpus or 1)
      or (r.series == "projection_devices" or r.series == "scaleout") and r.devices
    if dev == n and r.workload == w and r.system == s and r.hours and r.fits ~= false then
      return { h = r.hours * scale, lo = (r.hours_low or r.hours) * scale, hi = (r.hours_high or r.hours) * scale, r = r }
    end
  end
end

-- One job of `h` hours on `n` GPUs billed by offer o: the smallest instance that holds it, whole
-- billing steps of setup + run, at least the minimum.
function M.bill(o, h, n, setup_h)
  local size
  for _, z in ipairs(o.instance_gpus) do if not size and z >= n then size = z end end
  if not size then return nil end
  local step, result = o.billing_step_s / 3600, h + setup_h
  local billed = math.max(o.min_billed_s / 3600, math.max(math.ceil(result / step - 1e-9), 1) * step)
  return { usd = billed * size * o.usd_per_gpu_hour, result = result, size = size, billed = billed, offer = o, n = n, h = h }
end

-- The best bill of workload w: over the offers (of system `only_s` when given) and the configurations
-- (only `only_n` GPUs when given), the cheapest that meets the deadline, else the fastest.
function M.best_bill(model, offers, w, scale, setup_h, deadline_h, only_s, only_n)
  local best
  for _, o in ipairs(offers) do
    if not only_s or o.system == only_s then
      for _, n in ipairs { 1, 2, 4, 8 } do
        local hh = (not only_n or n == only_n) and M.hours(model, w, o.system, n, scale)
        local b = hh and M.bill(o, hh.h, n, setup_h)
        if b then
          b.meets = b.result <= deadline_h
          if not best or (b.meets and not best.meets) or (b.meets == best.meets and (b.meets and b.usd < best.usd
             or not b.meets and b.result < best.result)) then best = b end
        end
      end
    end
  end
  return best
end

-- What one busy device-hour of a system bought costs at use u (busy hours over all hours): its price
-- over its life's busy hours, the electricity of the hour, its share of the idle hours' electricity
-- ((1 - u) / u idle hours per busy hour), and for a server (more than one GPU to a server) the room's
-- overhead on both, its room and power capacity and support, over its busy hours.
function M.hour(c, t, u)
  local server = (c.server_gpus or 1) > 1
  local room = server and t.pue or 1
  local busy = M.HY * u
  local usd = c.purchase_usd / t.life_years / busy + (c.system_power_w or 0) / 1000 * room * t.kwh_usd
    + (c.idle_power_w or 0) / 1000 * room * t.kwh_usd * math.max(0, 1 - u) / u
  if server then
    usd = usd + c.purchase_usd * t.support_share / busy + c.system_power_w / 1000 * t.facility_usd_per_kw_month * 12 / busy
  end
  return usd
end

-- The team's terms at their defaults, as a results file without a team is costed (src/decide/team.c's
-- table, written again): life and electricity are the scenario's.
function M.default_terms(scn)
  return { life_years = scn.life_years or 3, kwh_usd = scn.kwh_usd or 0.15, pue = 1.56, facility_usd_per_kw_month = 196,
           support_share = 0.2, setup_h = 0.25 }
end

-- The formats the pages print (sparkreport.format's rules, written again).
local function rate(x)
  if x >= 1000 then return M.thousands(x) end
  if x >= 100 then return ("%.0f"):format(x) elseif x >= 10 then return ("%.1f"):format(x) end
  return ("%.2f"):format(x)
end
M.rate = rate
function M.thousands(x)
  local s = ("%d"):format(math.floor(x + 0.5)):reverse():gsub("(%d%d%d)", "%1,"):reverse()
  return (s:gsub("^,", ""))
end
function M.usd(x)
  if x >= 1000 then return "$" .. M.thousands(x) end
  if x >= 100 then return ("$%.0f"):format(x) elseif x >= 10 then return ("$%.1f"):format(x) end
  return ("$%.2f"):format(x)
end
function M.lit(s) return (s:gsub("[%^%$%(%)%%%.%[%]%*%+%-%?]", "%%%0")) end

return M
