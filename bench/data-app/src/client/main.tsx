// The bench's data app has no page to speak of: the bench calls its queries.
document.body.textContent = 'bench data';
