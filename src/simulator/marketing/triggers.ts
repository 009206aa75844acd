// The webhook trigger types (seed §6), with the real product prefix.
export const TRIGGERS: ReadonlyArray<readonly [type: string, label: string, description: string]> = [
  ["mautic.company_post_save", "Company create/update event", "Triggered when a company is created or updated."],
  ["mautic.company_post_delete", "Company deleted event", "Triggered when a company is deleted."],
  ["mautic.lead_channel_subscription_changed", "Contact channel subscription change event", "Triggered when a contact's channel subscription (do not contact) changes."],
  ["mautic.lead_company_change", "Contact company subscription change event", "Triggered when a contact is added to or removed from a company."],
  ["mautic.lead_post_delete", "Contact deleted event", "Triggered when a contact is deleted."],
  ["mautic.lead_post_save_new", "Contact identified event", "Triggered when a new contact is identified."],
  ["mautic.lead_points_change", "Contact points changed event", "Triggered when a contact's points change."],
  ["mautic.lead_list_change", "Contact segment membership change event", "Triggered when a contact joins or leaves a segment."],
  ["mautic.lead_post_save_update", "Contact updated event", "Triggered when an identified contact is updated."],
  ["mautic.email_on_open", "Email open event", "Triggered when an email is opened."],
  ["mautic.email_on_send", "Email send event", "Triggered when an email is sent."],
  ["mautic.form_on_submit", "Form submit event", "Triggered when a form is submitted."],
  ["mautic.page_on_hit", "Page hit event", "Triggered when a landing page or tracked page is hit."],
  ["mautic.sms_on_send", "Text send event", "Triggered when a text message is sent."],
]
