// Console page: the maintenance switch.
import { html } from "hono/html";
import { enc, str, type C, type Kit, type Router, type Row } from "../kit";
import { csrfField, field, formError, page, type Notice } from "../layout";

export function maintenancePages(router: Router, kit: Kit) {
  const { api, ctxOf, back, failed, form } = kit;

  async function maintenancePage(c: C, notice: Notice = {}) {
    const ctx = ctxOf(c, notice);
    const res = await api(c).call<{ Maintenance: { Enabled: boolean; Message: string } }>("GET", "/maintenance");
    const m = res.ok ? res.data.Maintenance : null;
    return c.html(
      page(
        "Maintenance",
        html`${res.ok ? "" : html`<p class="error" role="alert">${res.message}</p>`}
<p id="maintenance-state">Maintenance is <strong>${m?.Enabled ? "on" : "off"}</strong>${m?.Enabled ? html`: every /v1 call answers 503${m.Message ? html` with “${m.Message}”` : ""}.` : "."}</p>
<section class="card" aria-labelledby="maint-h">
  <h2 id="maint-h">${m?.Enabled ? "Turn maintenance off" : "Turn maintenance on"}</h2>
  <form method="post" action="/console/maintenance">${csrfField(ctx.csrf)}${formError(ctx, "maintenance", ["Message"])}
    <input type="hidden" name="Enabled" value="${m?.Enabled ? "false" : "true"}">
    ${m?.Enabled ? "" : field(ctx, { form: "maintenance", name: "Message", label: "Message to clients", hint: "Shown in every 503 while maintenance is on.", attrs: 'maxlength="500"' })}
    <button type="submit">${m?.Enabled ? "Turn maintenance off" : "Turn maintenance on"}</button>
  </form>
</section>`,
        { ctx },
      ),
    );
  }
  router.get("/maintenance", (c) => maintenancePage(c));
  router.post("/maintenance", async (c) => {
    const body = await form(c);
    const enabled = body.Enabled === "true";
    const payload: Row = { Enabled: enabled };
    if (enabled && str(body.Message).trim()) payload.Message = str(body.Message).trim();
    const res = await api(c).call("PUT", "/maintenance", payload);
    if (!res.ok) return failed(c, maintenancePage, "maintenance", res);
    return back(c, "/console/maintenance", `Maintenance is ${enabled ? "on" : "off"}.`);
  });

}
